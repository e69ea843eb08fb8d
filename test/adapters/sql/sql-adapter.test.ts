import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { isIncremental, type Adapter, type AdapterContext, type SyncEvent } from '../../../src/adapters/adapter';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping, SqlAdapter, type SqlCheckpoint, type SqlMappingInput } from '../../../src/adapters/sql';
import { SourceError, SourceUnavailableError } from '../../../src/adapters/source-error';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync, type SyncOptions } from '../../../src/sync/run-sync';
import { createFixtureSchema, FixtureWriter, fixtureMapping, seedFixture } from '../../helpers/sql-fixture';
import { createSqlSource, sourceKinds, type SqlSource } from '../../helpers/sql-source';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';

/**
 * The SQL adapter through the real sync engine, against each source database this run covers:
 * what it stages (roles, attributes, nested groups, dropped dangling grants), incremental
 * updates and deletions in both modes, deletions and access changes found by listing alone,
 * users who leave, a mapping written as a query, bad rows, a changed mapping, and an unreachable
 * database. Staging is SQLite here; the e2e test covers Postgres staging.
 */
const logger = pino({ level: 'silent' });
const ctx: AdapterContext = { logger, signal: new AbortController().signal, now: () => new Date() };

async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
  const out: SyncEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe.each(sourceKinds)('the SQL adapter reading %s', (kind) => {
  let source: SqlSource;
  let staging: TestDatabase;
  let blobDir: string;
  let writer: FixtureWriter;
  let clock: number;

  const adapterFor = (mapping: SqlMappingInput, pageSize = 4): Adapter =>
    createSqlAdapter({ connection: parseDatabaseUrl(source.url), mapping: resolveSqlMapping(mapping), sourceName: 'hr', pageSize });
  const sync = async (adapter: Adapter, mode: SyncOptions['mode'], options: Partial<SyncOptions> = {}) => {
    clock += 3_600_000;
    return runSync(adapter, { db: staging.db, blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) }, { mode, ...options });
  };
  const files = async () =>
    (await staging.db('files').where({ source: 'hr' }).orderBy('native_id').select('native_id', 'status', 'name')) as Array<{
      native_id: string;
      status: string;
      name: string;
    }>;
  const active = async () =>
    (await files())
      .filter((f) => f.status === 'active')
      .map((f) => f.native_id)
      .sort((a, b) => Number(a) - Number(b));
  const access = async (id: string) =>
    (
      (await staging
        .db('file_permissions')
        .where({ file_id: `hr:${id}` })
        .orderBy(['principal_type', 'principal_id'])
        .select('principal_type', 'principal_id')) as Array<{ principal_type: string; principal_id: string }>
    ).map((p) => `${p.principal_type} ${p.principal_id}`);

  beforeEach(async () => {
    source = await createSqlSource(kind);
    await createFixtureSchema(source.db);
    await seedFixture(source);
    writer = new FixtureWriter(source);
    staging = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-blobs-'));
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await source?.destroy();
    await staging?.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it('yields users with roles and attributes, nested groups, and files with policy inputs and only grants the directory can resolve', async () => {
    const events = await collect(adapterFor(fixtureMapping()).full(ctx));
    const users = events.flatMap((e) => (e.type === 'user' ? [e.user] : []));
    expect(users.find((u) => u.nativeId === '1')).toEqual({
      nativeId: '1',
      email: 'person1@example.com',
      fullName: 'Person 1',
      active: true,
      attributes: { department: 'legal', clearance: 1 },
      roles: ['editor', 'viewer'],
    });
    expect(users.find((u) => u.nativeId === '6')).toMatchObject({ active: false, roles: [] });
    const groups = events.flatMap((e) => (e.type === 'group' ? [e.group] : []));
    expect(groups.find((g) => g.nativeId === 'all-staff')?.members).toEqual([
      { type: 'GROUP', nativeId: 'finance-team' },
      { type: 'USER', nativeId: '1' },
      { type: 'USER', nativeId: '3' },
    ]);
    const file = (id: string) => events.flatMap((e) => (e.type === 'file' && e.file.nativeId === id ? [e.file] : []))[0];
    expect(file('4')).toMatchObject({
      attributes: { kind: 'policy', space: 'general', department: 'legal', level: 0, tags: ['alpha', 'beta'] },
      customAttributes: { kind: 'policy' },
    });
    expect(file('4')?.access).toEqual([{ type: 'USER', nativeId: '5' }, { type: 'GROUP', nativeId: 'finance-team' }, { type: 'EVERYONE' }]);
    // Document 1 also grants user 999, whom the people table lacks: left out.
    expect(file('1')?.access).toEqual([
      { type: 'USER', nativeId: '2' },
      { type: 'GROUP', nativeId: 'all-staff' },
    ]);
    expect(events.filter((e) => e.type === 'failure')).toEqual([]);
  });

  it('by modified time: updates, inserts and access changes are read; deletions and access edited without a new timestamp are found by listing', async () => {
    const adapter = adapterFor(fixtureMapping('modified'));
    expect(await sync(adapter, 'full')).toMatchObject({ counts: { added: 12, failed: 0 }, identities: { added: 6 + 2 } });
    await writer.updateDocument(5, { title: 'Renamed five' });
    await writer.insertDocument(20);
    await writer.deleteDocuments([7, 8]);
    // An access row changed with no change to the document's timestamp: only the listing sees it.
    await source.db('document_access').where({ document_id: 3, principal_type: 'USER' }).update({ principal_id: '1' });
    const summary = await sync(adapter, 'auto');
    expect(summary).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 1, changed: 2, deleted: 2, failed: 0 } });
    expect(summary.reconciliation).toMatchObject({ accessRewritten: 1, deleted: 2 });
    expect(await active()).toEqual(['1', '2', '3', '4', '5', '6', '9', '10', '11', '12', '20']);
    expect((await files()).find((f) => f.native_id === '5')?.name).toBe('Renamed five');
    expect(await access('3')).toEqual(['GROUP hr:all-staff', 'USER hr:1']);
  });

  it('by change table: delete rows tombstone without any listing, and a changed row gone by the time it is read is deleted too', async () => {
    const adapter = adapterFor(fixtureMapping('changes'));
    await sync(adapter, 'full');
    await writer.deleteDocuments([2]);
    await writer.updateDocument(9, { body: '<p>new</p>' });
    await writer.updateDocument(10, { body: '<p>new</p>' });
    await source.db('documents').where({ id: 10 }).delete(); // logged as an update only
    const summary = await sync(adapter, 'auto', { reconcile: false });
    expect(summary).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { changed: 1, deleted: 2, failed: 0 } });
    expect(summary.reconciliation).toBeUndefined();
    expect(await active()).toEqual(['1', '3', '4', '5', '6', '7', '8', '9', '11', '12']);
  });

  it('runs in full when the change table was reset behind the checkpoint (its new rows would never be read)', async () => {
    const adapter = adapterFor(fixtureMapping('changes'));
    await sync(adapter, 'full');
    for (let i = 0; i < 5; i++) await writer.updateDocument(3, { title: `Three, take ${i}` });
    expect((await sync(adapter, 'auto')).mode).toBe('incremental');
    await source.db('document_changes').delete();
    await source.db('documents').where({ id: 4 }).update({ title: 'Four, after the reset' });
    await source.db('document_changes').insert({ seq: 2, document_id: 4, op: 'update' });
    const summary = await sync(adapter, 'auto');
    expect(summary).toMatchObject({ mode: 'full', status: 'succeeded', counts: { changed: 1 } });
    expect(summary.fellBackToFull).toMatch(/change table's last sequence \(2\) is behind the checkpoint's \(5\): it was reset/);
  });

  it('reads past many rows sharing one timestamp across page boundaries, each once', async () => {
    const adapter = adapterFor({ ...fixtureMapping('modified'), incremental: { mode: 'modified', overlap: 0 } }, 2);
    await sync(adapter, 'full');
    const same = source.ts(Date.parse('2026-04-02T00:00:00Z'));
    await source.db('documents').whereIn('id', [1, 2, 3, 4, 5, 6, 7]).update({ updated_at: same, body: '<p>bulk edit</p>' });
    const events = await collect(
      (adapter as SqlAdapter).changes(
        ctx,
        (await staging
          .db('sync_checkpoints')
          .where({ source: 'hr' })
          .first()
          .then((r: { checkpoint: string }) => JSON.parse(r.checkpoint))) as SqlCheckpoint,
      ),
    );
    const read = events.flatMap((e) => (e.type === 'file' ? [e.file.nativeId] : []));
    // Document 12 holds the stored position: a timestamp does not identify a write, so it is read again.
    expect(read).toEqual(['12', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('deactivates users who leave the people table, and changes users whose roles or attributes change', async () => {
    const adapter = adapterFor(fixtureMapping('modified'));
    await sync(adapter, 'full');
    await source.db('team_members').where({ member_id: '4' }).delete();
    await source.db('people').where({ id: 4 }).delete();
    await source.db('role_assignments').insert({ person_id: 2, role: 'editor' });
    await source.db('people').where({ id: 3 }).update({ department: 'finance' });
    const summary = await sync(adapter, 'auto');
    expect(summary.counts).toMatchObject({ changed: 2, failed: 0 });
    expect(summary.identities).toMatchObject({ deleted: 1 });
    const states = (await staging.db('users').where({ source: 'hr' }).orderBy('id').select('id', 'state')) as Array<{ id: string; state: string }>;
    expect(states.filter((u) => u.state !== 'Active').map((u) => u.id)).toEqual(['hr:4', 'hr:6']);
  });

  it('reads documents from a query (a join) as from a table, incremental runs included', async () => {
    const base = fixtureMapping('modified');
    const { table: _t, ...docs } = base.documents;
    const mapping: SqlMappingInput = {
      ...base,
      documents: {
        ...docs,
        query:
          'select d.id, d.title, d.body, d.kind, d.space, d.department, d.level, d.tags, d.author, d.updated_at, p.full_name as author_name from documents d left join people p on p.email = d.author',
        customAttributes: { author: 'author_name' },
      },
    };
    const adapter = adapterFor(mapping);
    await sync(adapter, 'full');
    expect(((await staging.db('files').where({ id: 'hr:1' }).first()) as { custom_attributes: string }).custom_attributes).toContain('Person 2');
    await writer.updateDocument(6, { title: 'Six, again' });
    const summary = await sync(adapter, 'auto');
    expect(summary).toMatchObject({ mode: 'incremental', counts: { changed: 1, deleted: 0, failed: 0 } });
  });

  it('reads attributes from key-value tables too, for users and for documents, a page at a time', async () => {
    await source.db.schema.createTable('person_attributes', (t) => {
      t.integer('person_id');
      t.string('attr', 50);
      t.string('val', 50);
    });
    await source.db.schema.createTable('document_attributes', (t) => {
      t.integer('document_id');
      t.string('attr', 50);
      t.string('val', 50);
    });
    await source.db('person_attributes').insert([
      { person_id: 1, attr: 'project', val: 'apollo' },
      { person_id: 1, attr: 'project', val: 'gemini' },
      { person_id: 2, attr: 'project', val: 'apollo' },
    ]);
    await source.db('document_attributes').insert([
      { document_id: 3, attr: 'project', val: 'gemini' },
      { document_id: 9, attr: 'project', val: 'apollo' },
      { document_id: 9, attr: 'review', val: '2' },
    ]);
    const base = fixtureMapping('modified');
    const mapping: SqlMappingInput = {
      ...base,
      documents: {
        ...base.documents,
        attributeRows: { table: 'document_attributes', owner: 'document_id', name: 'attr', value: 'val', types: { project: 'list', review: 'number' } },
      },
      users: { ...base.users!, attributeRows: { table: 'person_attributes', owner: 'person_id', name: 'attr', value: 'val', types: { project: 'list' } } },
    };
    const events = await collect(adapterFor(mapping, 2).full(ctx));
    const user = (id: string) => events.flatMap((e) => (e.type === 'user' && e.user.nativeId === id ? [e.user.attributes] : []))[0];
    const doc = (id: string) => events.flatMap((e) => (e.type === 'file' && e.file.nativeId === id ? [e.file.attributes] : []))[0];
    expect(user('1')).toEqual({ department: 'legal', clearance: 1, project: ['apollo', 'gemini'] });
    expect(user('3')).toEqual({ department: 'finance', clearance: 3 });
    expect(doc('3')).toMatchObject({ project: ['gemini'] });
    expect(doc('9')).toMatchObject({ project: ['apollo'], review: 2, level: 1 });
    expect(doc('4')).not.toHaveProperty('project');
  });

  it('fails only the rows it cannot map (bad URL, unknown access type, bad email), and runs on', async () => {
    await source.db('document_access').insert({ document_id: 11, principal_type: 'ROLE', principal_id: 'admins' });
    await source.db('people').insert({ id: 7, email: 'nobody', full_name: 'No Email', is_active: true });
    await source.db('documents').whereNot({ id: 1 }).update({ tags: 'https://wiki.example.com/page' });
    const base = fixtureMapping('modified');
    const adapter = adapterFor({ ...base, documents: { ...base.documents, urlTemplate: undefined, url: 'tags' } });
    const events = await collect(adapter.full(ctx));
    const failures = events.flatMap((e) => (e.type === 'failure' ? [`${e.kind} ${e.nativeId} | ${e.error.message}`] : []));
    expect(failures.sort()).toEqual([
      'file 1 | document 1: URL "gamma" is not an absolute http(s) URL',
      'file 11 | document 11: access type "ROLE" is not USER, GROUP or EVERYONE',
      'user 7 | user 7: "nobody" is not an email address',
    ]);
    expect(events.filter((e) => e.type === 'file')).toHaveLength(10);
  });

  it('refuses a checkpoint taken under another mapping (the next run is full, re-rendering everything)', async () => {
    await sync(adapterFor(fixtureMapping('modified')), 'full');
    const base = fixtureMapping('modified');
    const summary = await sync(
      adapterFor({ ...base, documents: { ...base.documents, body: undefined, html: '<h1>{{title}}</h1><p>{{department}}</p>' } }),
      'auto',
    );
    expect(summary).toMatchObject({ mode: 'full', status: 'succeeded', counts: { changed: 12 } });
    expect(summary.fellBackToFull).toMatch(/the mapping file changed/);
  });

  it('resumes an interrupted full run after its last page', async () => {
    const adapter = adapterFor(fixtureMapping('modified'));
    const first = await collect(adapter.full(ctx));
    const progress = first.filter((e): e is Extract<SyncEvent, { type: 'checkpoint' }> => e.type === 'checkpoint').map((e) => e.checkpoint as SqlCheckpoint)[2];
    expect(progress?.progress).toEqual({ after: expect.anything() });
    const resumed = await collect(adapter.full(ctx, progress));
    const ids = resumed.flatMap((e) => (e.type === 'file' ? [Number(e.file.nativeId)] : []));
    expect(ids).toEqual([9, 10, 11, 12]);
    expect(
      isIncremental(adapter) &&
        adapter.checkpointSchema.safeParse(
          resumed[resumed.length - 1]?.type === 'checkpoint' ? (resumed[resumed.length - 1] as { checkpoint: unknown }).checkpoint : null,
        ).success,
    ).toBe(true);
  });
});

describe('the SQL adapter and its database', () => {
  it('reports an unreachable database as a retryable SourceError, without the password', async () => {
    const adapter = createSqlAdapter({
      connection: parseDatabaseUrl('postgres://reader:hunter2-secret@127.0.0.1:1/db'),
      mapping: resolveSqlMapping(fixtureMapping()),
      sourceName: 'hr',
      pageSize: 10,
    });
    const error = await collect(adapter.full(ctx)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SourceUnavailableError);
    expect((error as Error).message).toMatch(/^postgres:\/\/reader:\*\*\*@127\.0\.0\.1:1\/db: /);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('reports a query the database refuses as a SourceError naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-bad-'));
    const file = path.join(dir, 'empty.db');
    const db = (await import('better-sqlite3')).default(file);
    db.close();
    try {
      const adapter = createSqlAdapter({
        connection: parseDatabaseUrl(`sqlite:${file}`),
        mapping: resolveSqlMapping(fixtureMapping()),
        sourceName: 'hr',
        pageSize: 10,
      });
      await expect(collect(adapter.full(ctx))).rejects.toThrow(SourceError);
      await expect(collect(adapter.full(ctx))).rejects.toThrow(/^sqlite:.*empty\.db: select .* no such table: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
