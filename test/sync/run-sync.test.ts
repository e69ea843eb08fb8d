import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { FullRunRequired, SourceUnavailableError } from '../../src/adapters/source-error';
import type { BlobStore } from '../../src/blobs/blob-store';
import { DbBlobStore } from '../../src/blobs/db-blob-store';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { toFileResource } from '../../src/wire/file-resource';
import { FilesRepository } from '../../src/staging/repositories/files-repository';
import { SyncLockedError, SyncLock } from '../../src/staging/repositories/sync-lock';
import { runSync, type SyncOptions } from '../../src/sync/run-sync';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const logger = pino({ level: 'silent' });

const setups = databaseKinds.flatMap((kind) => (['directory', 'database'] as const).map((store) => [kind, store] as const));

describe.each(setups)('runSync on %s, blobs in the %s store', (kind, store) => {
  let t: TestDatabase;
  let blobDir: string;
  let blobs: BlobStore;
  let clock: number;
  const now = () => new Date(clock);
  const sync = (source: ScriptedSource, options: Partial<SyncOptions> = {}) => runSync(source, { db: t.db, blobs, logger, now }, options);
  const files = () => t.db('files').orderBy('id').select('id', 'status', 'modified_at', 'permissions_modified_at', 'sha256', 'blob_key', 'body_html', 'name');
  const snapshot = async () => ({
    files: await t.db('files').orderBy('id').select('id', 'status', 'modified_at', 'permissions_modified_at', 'sha256', 'body_html', 'wire_json'),
    permissions: await t.db('file_permissions').orderBy(['file_id', 'principal_type', 'principal_id']),
    users: await t.db('users').orderBy('id').select('id', 'state', 'modified_at', 'email'),
    groups: await t.db('groups').orderBy('id').select('id', 'name', 'modified_at'),
    members: await t.db('group_members').orderBy(['group_id', 'member_type', 'member_id']).select('group_id', 'member_type', 'member_id'),
  });

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-'));
    blobs = store === 'database' ? new DbBlobStore(t.db) : new FsBlobStore(blobDir);
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  function org(): ScriptedSource {
    const s = new ScriptedSource('src');
    s.putUser({ nativeId: 'ana', email: 'ana@x.example', fullName: 'Ana', active: true })
      .putUser({ nativeId: 'bo', email: 'bo@x.example', active: true })
      .putGroup({
        nativeId: 'all',
        name: 'All',
        members: [
          { type: 'GROUP', nativeId: 'eng' },
          { type: 'USER', nativeId: 'bo' },
        ],
      })
      .putGroup({ nativeId: 'eng', name: 'Eng', members: [{ type: 'USER', nativeId: 'ana' }] });
    for (let i = 0; i < 10; i++) s.html(`doc${i}`, `<p>${i}</p>`, [{ type: 'GROUP', nativeId: 'all' }]);
    s.binary('deck', Buffer.from('%PDF deck v1'), 'v1', [{ type: 'USER', nativeId: 'ana' }, { type: 'EVERYONE' }]);
    return s;
  }

  it('stages everything a full run yields, with global ids, the wildcard and direct members', async () => {
    const summary = await sync(org());
    expect(summary).toMatchObject({
      status: 'succeeded',
      mode: 'full',
      counts: { added: 11, changed: 0, unchanged: 0, deleted: 0, failed: 0 },
      identities: { added: 4, changed: 0, unchanged: 0, deleted: 0 },
    });
    expect(summary.fellBackToFull).toBe('no checkpoint yet');
    const perms = await t.db('file_permissions').where({ file_id: 'src:deck' }).orderBy('principal_type').select('principal_type', 'principal_id');
    expect(perms).toEqual([
      { principal_type: 'GROUP', principal_id: '*' },
      { principal_type: 'USER', principal_id: 'src:ana' },
    ]);
    expect(await t.db('group_members').where({ group_id: 'src:all' }).orderBy('member_type').select('member_type', 'member_id')).toEqual([
      { member_type: 'GROUP', member_id: 'src:eng' },
      { member_type: 'USER', member_id: 'src:bo' },
    ]);
    const deck = await t.db('files').where({ id: 'src:deck' }).first();
    const bytes: Buffer[] = [];
    for await (const chunk of blobs.createReadStream(deck.blob_key)) bytes.push(chunk as Buffer);
    expect(Buffer.concat(bytes).toString('utf8')).toBe('%PDF deck v1');
    expect(JSON.parse(deck.wire_json)).toMatchObject({ id: 'src:deck', content: { download_path: '/src%3Adeck/download', size: 12 } });
  });

  it('a second full run over an unchanged source changes nothing the platform would re-download', async () => {
    const source = org();
    await sync(source);
    const before = await snapshot();
    const opens = source.opens;
    clock += 3600_000;
    const summary = await sync(source, { mode: 'full' });
    expect(summary.counts).toMatchObject({ added: 0, changed: 0, unchanged: 11, deleted: 0 });
    expect(summary.identities).toEqual({ added: 0, changed: 0, unchanged: 4, deleted: 0 });
    expect(await snapshot()).toEqual(before);
    expect(source.opens).toBe(opens); // same version: the bytes were not fetched again
  });

  it('moves last_modified_datetime exactly for what changed; an access change moves only the permissions timestamp', async () => {
    const source = org();
    await sync(source);
    const [before] = await Promise.all([files()]);
    clock += 60_000;
    source.html('doc1', '<p>1, edited</p>', [{ type: 'GROUP', nativeId: 'all' }]);
    source.html('doc2', '<p>2</p>', [{ type: 'GROUP', nativeId: 'eng' }]);
    const summary = await sync(source, { mode: 'full' });
    expect(summary.counts).toMatchObject({ changed: 2, unchanged: 9 });
    const after = await files();
    const byId = (rows: typeof after, id: string) => rows.find((r: { id: string }) => r.id === id);
    expect(byId(after, 'src:doc1').modified_at).toBe('2026-05-01T00:01:00.000Z');
    expect(byId(after, 'src:doc2').modified_at).toBe(byId(before, 'src:doc2').modified_at);
    expect(byId(after, 'src:doc2').permissions_modified_at).toBe('2026-05-01T00:01:00.000Z');
    expect(byId(after, 'src:doc3')).toEqual(byId(before, 'src:doc3'));
  });

  it('replaces the whole access list when content and access change together, also for a tombstone that comes back', async () => {
    const source = org();
    await sync(source);
    const access = (id: string) =>
      t.db('file_permissions').where({ file_id: id }).orderBy(['principal_type', 'principal_id']).select('principal_type', 'principal_id');
    clock += 60_000;
    // Content and access at once: the row is rewritten, and the old entries must not survive beside the new one.
    source.html('doc1', '<p>1, edited</p>', [{ type: 'USER', nativeId: 'bo' }]);
    source.binary('deck', Buffer.from('%PDF deck v2'), 'v2', [{ type: 'USER', nativeId: 'bo' }]);
    source.remove('file', 'doc2');
    expect((await sync(source, { mode: 'full' })).counts).toMatchObject({ changed: 2, deleted: 1 });
    expect(await access('src:doc1')).toEqual([{ principal_type: 'USER', principal_id: 'src:bo' }]);
    expect(await access('src:deck')).toEqual([{ principal_type: 'USER', principal_id: 'src:bo' }]);
    // doc2 is a tombstone now; it comes back narrower than it left.
    clock += 60_000;
    source.html('doc2', '<p>2, back</p>', [{ type: 'USER', nativeId: 'ana' }]);
    expect((await sync(source, { mode: 'full' })).counts).toMatchObject({ changed: 1 });
    expect(await t.db('files').where({ id: 'src:doc2' }).first('status')).toEqual({ status: 'active' });
    expect(await access('src:doc2')).toEqual([{ principal_type: 'USER', principal_id: 'src:ana' }]);
  });

  it('re-reads binary bytes only when the version changes, and serves the same timestamp when the bytes are equal', async () => {
    const source = org();
    await sync(source);
    const before = (await files()).find((f: { id: string }) => f.id === 'src:deck');
    source.binary('deck', Buffer.from('%PDF deck v1'), 'v2', [{ type: 'USER', nativeId: 'ana' }, { type: 'EVERYONE' }]);
    clock += 1000;
    await sync(source, { mode: 'full' });
    expect(source.opens).toBe(2);
    expect((await files()).find((f: { id: string }) => f.id === 'src:deck').modified_at).toBe(before.modified_at);
    source.binary('deck', Buffer.from('%PDF deck v3'), 'v3', [{ type: 'USER', nativeId: 'ana' }, { type: 'EVERYONE' }]);
    clock += 1000;
    await sync(source, { mode: 'full' });
    const after = (await files()).find((f: { id: string }) => f.id === 'src:deck');
    expect(after.modified_at).toBe(new Date(clock).toISOString());
    expect(after.sha256).not.toBe(before.sha256);
    // The old bytes are no longer referenced, so they left the blob store.
    expect(await blobs.stat(before.blob_key)).toBeUndefined();
  });

  it('stores bytes the blob store lost again on the next full run, without changing what is served', async () => {
    const source = org();
    await sync(source);
    const before = await snapshot();
    const deck = (await files()).find((f: { id: string }) => f.id === 'src:deck');
    await blobs.delete(deck.blob_key);
    clock += 1000;
    const summary = await sync(source, { mode: 'full' });
    expect(summary.counts).toMatchObject({ added: 0, changed: 0, unchanged: 11 });
    expect(source.opens).toBe(2);
    expect(await blobs.stat(deck.blob_key)).toEqual({ size: '%PDF deck v1'.length });
    expect(await snapshot()).toEqual(before);
  });

  it('sweeps what a full run did not see: tombstones, inactive users, removed groups; purges tombstones after retention', async () => {
    const source = org();
    await sync(source);
    source.remove('file', 'doc3').remove('file', 'deck').remove('user', 'bo').remove('group', 'eng');
    clock += 1000;
    const summary = await sync(source, { mode: 'full' });
    expect(summary.counts.deleted).toBe(2);
    expect(summary.identities.deleted).toBe(2);
    const rows = await files();
    expect(rows.filter((f: { status: string }) => f.status === 'deleted').map((f: { id: string }) => f.id)).toEqual(['src:deck', 'src:doc3']);
    const deck = rows.find((f: { id: string }) => f.id === 'src:deck');
    expect(deck).toMatchObject({ blob_key: null, body_html: null, modified_at: new Date(clock).toISOString() });
    // The stored list representation is the tombstone's, as rebuilt from its columns, not the live file's.
    const row = await t.db('files').where({ id: 'src:deck' }).first();
    expect(JSON.parse(row.wire_json)).toEqual(toFileResource(row, false));
    expect(JSON.parse(row.wire_json)).toMatchObject({ status: 'deleted', last_modified_datetime: new Date(clock).toISOString() });
    const listed = await new FilesRepository(t.db).listStoredFiles({ top: 100, skip: 0, orderBy: { field: 'id', direction: 'asc' }, filters: [] });
    expect(JSON.parse(`[${listed?.json.toString('utf8')}]`).find((f: { id: string }) => f.id === 'src:deck')).toEqual(JSON.parse(row.wire_json));
    expect((await t.db('users').where({ id: 'src:bo' }).first()).state).toBe('Inactive');
    expect(await t.db('groups').where({ id: 'src:eng' }).first()).toBeUndefined();
    expect(await t.db('group_members').where({ group_id: 'src:eng' })).toEqual([]);

    clock += 31 * 24 * 3600_000;
    await sync(source, { mode: 'full' });
    expect((await files()).map((f: { id: string }) => f.id)).not.toContain('src:doc3');
  });

  it('refuses to delete most of a source unless allowed, and deletes nothing when it refuses', async () => {
    const source = org();
    await sync(source);
    for (let i = 0; i < 7; i++) source.remove('file', `doc${i}`);
    const blocked = await sync(source, { mode: 'full' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.error).toMatch(/would delete 7 of 11 active files.*--allow-mass-delete/);
    expect(await t.db('files').where({ status: 'deleted' })).toHaveLength(0);
    const allowed = await sync(source, { mode: 'full', allowMassDelete: true });
    expect(allowed.status).toBe('succeeded');
    expect(await t.db('files').where({ status: 'deleted' })).toHaveLength(7);
  });

  it('records per-item failures and keeps those items; too many abort the run before any sweep', async () => {
    const source = org();
    await sync(source);
    source.putFile({
      ...source.files.get('deck')!,
      content: {
        kind: 'binary',
        version: 'broken',
        open: async () => {
          throw new SourceUnavailableError('503 from source');
        },
      },
    });
    source.remove('file', 'doc9');
    const one = await sync(source, { mode: 'full' });
    expect(one).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(one.failures[0]).toMatch(/src:deck: 503 from source/);
    expect((await t.db('files').where({ id: 'src:deck' }).first()).status).toBe('active');

    source.remove('file', 'doc8');
    const aborted = await sync(source, { mode: 'full', errorBudget: { maxFailures: 0, maxFailureRatio: 1, minItems: 1 } });
    expect(aborted.status).toBe('failed');
    expect(aborted.error).toMatch(/without deleting anything/);
    expect((await t.db('files').where({ id: 'src:doc8' }).first()).status).toBe('active');
    const run = await t.db('sync_runs').where({ id: aborted.runId }).first();
    expect(run).toMatchObject({ status: 'failed', source: 'src', mode: 'full' });
    expect(JSON.parse(run.counts)).toMatchObject({ failed: 1 });
  });

  it('stops reading and storing binary content once a batch fails, beyond what was already under way', async () => {
    const source = new ScriptedSource('src');
    source.putFile({
      nativeId: 'broken',
      name: 'Broken',
      externalUrl: 'https://src.example/broken',
      mimeType: 'application/pdf',
      access: [],
      content: {
        kind: 'binary',
        version: 'v',
        open: async () => {
          throw new SourceUnavailableError('503 from source');
        },
      },
    });
    for (let i = 0; i < 300; i++) source.binary(`deck${i}`, Buffer.from(`%PDF deck ${i}`), 'v1');
    const aborted = await sync(source, { errorBudget: { maxFailures: 0, maxFailureRatio: 1, minItems: 1 } });
    expect(aborted).toMatchObject({ status: 'failed', counts: { failed: 1 } });
    // 32 are read and stored at once; the rest of the batch is left alone, also once what was
    // under way when the run stopped has finished.
    for (let last = -1; last !== source.opens;) {
      last = source.opens;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(source.opens).toBeGreaterThan(0);
    expect(source.opens).toBeLessThan(100);
    expect(Number((await t.db('files').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('runs incrementally from the stored checkpoint, applies explicit deletes, and falls back to full when the checkpoint is bad or expired', async () => {
    const source = org();
    await sync(source);
    source.html('new', '<p>new</p>').remove('file', 'doc0').remove('user', 'ana');
    const inc = await sync(source);
    expect(inc).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 1, deleted: 1 }, identities: { deleted: 1 } });
    expect((await t.db('files').where({ id: 'src:doc0' }).first()).status).toBe('deleted');
    expect((await t.db('users').where({ id: 'src:ana' }).first()).state).toBe('Inactive');

    await t
      .db('sync_checkpoints')
      .where({ source: 'src' })
      .update({ checkpoint: JSON.stringify({ position: 'nonsense' }) });
    const invalid = await sync(source);
    expect(invalid).toMatchObject({ mode: 'full', status: 'succeeded', fellBackToFull: 'the stored checkpoint is invalid' });

    source.expire = new FullRunRequired('sync token expired (412)');
    const expired = await sync(source);
    expect(expired).toMatchObject({ mode: 'full', status: 'succeeded' });
    expect(expired.fellBackToFull).toMatch(/412/);
  });

  it('a full run required before the first change is planned full (no incremental run recorded); one found part way follows a failed incremental run; both summaries say why', async () => {
    const source = org();
    await sync(source);
    const runs = async () =>
      (await t.db('sync_runs').where({ source: 'src' }).orderBy('id').select('mode', 'status', 'error')) as Array<{
        mode: string;
        status: string;
        error: string | null;
      }>;
    const before = (await runs()).length;
    source.html('a', '<p>a</p>').html('b', '<p>b</p>');
    source.expire = new FullRunRequired('the workspace changed');
    expect(await sync(source)).toMatchObject({ mode: 'full', status: 'succeeded', fellBackToFull: 'the workspace changed' });
    expect((await runs()).slice(before)).toEqual([{ mode: 'full', status: 'succeeded', error: null }]);

    source.expire = undefined;
    source.html('c', '<p>c</p>').html('d', '<p>d</p>');
    source.expire = new FullRunRequired('sync token expired (412)');
    source.expireAfter = 1;
    expect(await sync(source)).toMatchObject({ mode: 'full', status: 'succeeded', fellBackToFull: 'sync token expired (412)' });
    expect((await runs()).slice(before + 1)).toEqual([
      { mode: 'incremental', status: 'failed', error: 'a full run is required: sync token expired (412)' },
      { mode: 'full', status: 'succeeded', error: null },
    ]);
  });

  it('allows one run per source at a time, and takes over a lock whose holder is gone', async () => {
    const holder = new SyncLock(t.db, 'src', 60_000, now);
    await holder.acquire();
    await expect(sync(org())).rejects.toBeInstanceOf(SyncLockedError);
    await t.db('sync_locks').where({ source: 'src' }).update({ expires_at: '2000-01-01T00:00:00.000Z', owner: 'elsewhere:1:x' });
    expect((await sync(org())).status).toBe('succeeded');
    await holder.release();
  });

  it('batch after batch: later events for an id win, a blob one batch releases and the next stores again survives, progress comes in order', async () => {
    const source = org();
    await sync(source);
    const deck = (await files()).find((f: { id: string }) => f.id === 'src:deck');
    source.binary('deck', Buffer.from('%PDF deck v2'), 'v2', [{ type: 'EVERYONE' }]); // releases the v1 bytes...
    source.binary('copy', Buffer.from('%PDF deck v1'), 'c1', [{ type: 'EVERYONE' }]); // ...which the next batch stores again
    source.html('doc0', '<p>0 v2</p>', [{ type: 'EVERYONE' }]).html('doc0', '<p>0 v3</p>', [{ type: 'EVERYONE' }]);
    source.remove('file', 'doc1').html('doc1', '<p>1</p>', [{ type: 'GROUP', nativeId: 'all' }]);
    const progress: number[] = [];
    clock += 1000;
    const summary = await sync(source, { mode: 'incremental', batchSize: 1, onProgress: (p) => progress.push(p.processed) });
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    const after = new Map(((await files()) as Array<{ id: string; blob_key: string }>).map((f) => [f.id, f]));
    expect(after.get('src:copy')).toMatchObject({ status: 'active', blob_key: deck.blob_key });
    expect(await blobs.stat(deck.blob_key)).toEqual({ size: '%PDF deck v1'.length });
    expect(await blobs.stat(after.get('src:deck')?.blob_key ?? '')).toEqual({ size: '%PDF deck v2'.length });
    expect(after.get('src:doc0')).toMatchObject({ status: 'active', body_html: '<p>0 v3</p>' });
    expect(after.get('src:doc1')).toMatchObject({ status: 'active', body_html: '<p>1</p>' });
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('cancels on abort without sweeping', async () => {
    const source = org();
    await sync(source);
    source.remove('file', 'doc1');
    const controller = new AbortController();
    source.beforeYield = (i) => {
      if (i === 5) controller.abort();
    };
    const summary = await runSync(source, { db: t.db, blobs, logger, now, signal: controller.signal }, { mode: 'full' });
    expect(summary.status).toBe('cancelled');
    expect((await t.db('files').where({ id: 'src:doc1' }).first()).status).toBe('active');
  });
});
