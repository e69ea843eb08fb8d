import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createFilesystemAdapter, filesystemCheckpointSchema, type FilesystemAdapter } from '../../../src/adapters/filesystem';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { CheckpointsRepository } from '../../../src/staging/repositories/checkpoints-repository';
import { runSync, type SyncOptions } from '../../../src/sync/run-sync';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';
import { DIRECTORY, makeDir, makeTree, PAST, removeTrees, writeFiles } from './tree-fixture';

/**
 * The filesystem adapter through the real sync engine, on real migrations (SQLite, and Postgres
 * when TEST_DATABASE_URL is set): what a tree stages, and what edits, deletions, sidecar and
 * directory changes do to staging on incremental runs.
 */
const PDF = Buffer.from('%PDF-1.4\n% a tiny fake pdf\n');

function tree(): string {
  return makeTree({
    '_access.yaml': 'public: true\n',
    'welcome.html': '<!DOCTYPE html><html><head><title>Welcome</title></head><body><h1>Welcome</h1></body></html>',
    'notes.md': '# Notes\n\n<script>alert("x")</script>\n',
    'guide.txt': 'A plain guide.\n',
    'deck.pdf': PDF,
    'team/_access.yaml': 'groups: [eng]\nfiles:\n  secret.docx: { users: [ana] }\n',
    'team/plan.html': '<h1>Plan</h1><p>v1</p>',
    'team/secret.docx': 'PK fake docx',
    'team/slides.pptx': 'PK fake pptx',
    'team/sub/deep.html': '<h1>Deep</h1>',
    'private/_access.yaml': '{}\n',
    'private/x.html': '<h1>X</h1>',
    'ünï/cafe\u0301 ☕.html': '<h1>Café</h1>',
    'data.csv': 'a,b\n',
    'archive.zip': 'PK',
    '_draft.html': '<h1>not content</h1>',
  });
}
/** Content files in `tree()`: everything but the sidecars, the directory, `_draft.html`, `.csv` and `.zip`. */
const FILE_COUNT = 10;

describe.each(databaseKinds)('the filesystem adapter through runSync on %s', (kind) => {
  let t: TestDatabase;
  let blobs: FsBlobStore;
  let clock: number;
  let root: string;
  let adapter: FilesystemAdapter;
  const now = () => new Date(clock);
  const sync = (options: Partial<SyncOptions> = {}, logger = pino({ level: 'silent' })) => runSync(adapter, { db: t.db, blobs, logger, now }, options);
  const incremental = () => sync({ mode: 'incremental' });
  const tick = () => (clock += 60_000);

  const files = () =>
    t
      .db('files')
      .where({ source: 'fs' })
      .orderBy('id')
      .select('id', 'name', 'status', 'mime_type', 'modified_at', 'permissions_modified_at', 'sha256', 'body_html', 'external_url', 'wire_json');
  const permissions = async () => {
    const rows = (await t
      .db('file_permissions')
      .where('file_id', 'like', 'fs:%')
      .orderBy(['file_id', 'principal_type', 'principal_id'])
      .select('file_id', 'principal_type', 'principal_id')) as Array<{ file_id: string; principal_type: string; principal_id: string }>;
    const out: Record<string, string[]> = {};
    for (const r of rows) (out[r.file_id] ??= []).push(`${r.principal_type} ${r.principal_id}`);
    return out;
  };
  const snapshot = async () => ({
    files: await files(),
    permissions: await t.db('file_permissions').orderBy(['file_id', 'principal_type', 'principal_id']),
    users: await t.db('users').orderBy('id').select('id', 'email', 'full_name', 'state', 'modified_at'),
    groups: await t.db('groups').orderBy('id').select('id', 'name', 'modified_at'),
    members: await t.db('group_members').orderBy(['group_id', 'member_type', 'member_id']).select('group_id', 'member_type', 'member_id'),
  });
  const row = async (id: string) => (await files()).find((f: { id: string }) => f.id === `fs:${id}`);
  /** Rewrites a file with new content and a new (past) mtime, as an editor would. */
  const edit = (rel: string, content: string | Buffer, minutes = 60) => writeFiles(root, { [rel]: content }, new Date(PAST.getTime() + minutes * 60_000));

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobs = new FsBlobStore(makeDir('fs-blobs-'));
    clock = Date.parse('2026-05-01T00:00:00Z');
    root = tree();
    adapter = createFilesystemAdapter({ root, sourceName: 'fs', baseUrl: 'https://kb.example/docs' });
  });
  afterEach(() => t.destroy());
  afterAll(removeTrees);

  it('stages files, access lists, users and groups from a full run', async () => {
    const summary = await sync();
    expect(summary).toMatchObject({
      status: 'succeeded',
      mode: 'full',
      counts: { added: FILE_COUNT, changed: 0, failed: 0, deleted: 0 },
      identities: { added: 2 + 2 },
    });
    const staged = await files();
    expect(staged.map((f: { id: string }) => f.id)).toEqual(
      [
        'fs:deck.pdf',
        'fs:guide.txt',
        'fs:notes.md',
        'fs:private/x.html',
        'fs:team/plan.html',
        'fs:team/secret.docx',
        'fs:team/slides.pptx',
        'fs:team/sub/deep.html',
        'fs:welcome.html',
        'fs:\u00fcn\u00ef/caf\u00e9 \u2615.html',
      ].sort(),
    );
    expect(staged).toHaveLength(FILE_COUNT);
    expect(await permissions()).toEqual({
      'fs:deck.pdf': ['GROUP *'],
      'fs:guide.txt': ['GROUP *'],
      'fs:notes.md': ['GROUP *'],
      'fs:team/plan.html': ['GROUP fs:eng'],
      'fs:team/secret.docx': ['USER fs:ana'],
      'fs:team/slides.pptx': ['GROUP fs:eng'],
      'fs:team/sub/deep.html': ['GROUP fs:eng'],
      'fs:welcome.html': ['GROUP *'],
      'fs:\u00fcn\u00ef/caf\u00e9 \u2615.html': ['GROUP *'],
    });
    expect(await t.db('users').orderBy('id').select('id', 'email', 'full_name', 'state')).toEqual([
      { id: 'fs:ana', email: 'ana@example.com', full_name: 'Ana', state: 'Active' },
      { id: 'fs:bo', email: 'bo@example.com', full_name: 'Bo', state: 'Inactive' },
    ]);
    expect(await t.db('group_members').orderBy(['group_id', 'member_type', 'member_id']).select('group_id', 'member_type', 'member_id')).toEqual([
      { group_id: 'fs:core', member_type: 'USER', member_id: 'fs:bo' },
      { group_id: 'fs:eng', member_type: 'GROUP', member_id: 'fs:core' },
      { group_id: 'fs:eng', member_type: 'USER', member_id: 'fs:ana' },
    ]);
    const notes = await row('notes.md');
    expect(notes).toMatchObject({ name: 'Notes', mime_type: 'text/html', external_url: 'https://kb.example/docs/notes.md' });
    expect(notes.body_html).toContain('&lt;script&gt;');
    expect(notes.body_html).not.toContain('<script');
    const deck = await t.db('files').where({ id: 'fs:deck.pdf' }).first();
    expect(deck).toMatchObject({ mime_type: 'application/pdf', body_html: null, source_version: expect.stringMatching(/^\d+(\.\d+)?:\d+$/) });
    expect(Number(deck.size)).toBe(PDF.length);
    expect(JSON.parse(deck.wire_json)).toMatchObject({ parent_info: { id: 'fs:/', path: '/' } });
  });

  it('a second full run changes nothing: counts.changed 0 and identical rows, binaries not re-read', async () => {
    await sync();
    const before = await snapshot();
    tick();
    const put = jest.spyOn(blobs, 'put');
    const summary = await sync({ mode: 'full' });
    expect(summary.counts).toMatchObject({ added: 0, changed: 0, deleted: 0, failed: 0, unchanged: FILE_COUNT });
    expect(await snapshot()).toEqual(before);
    expect(put).not.toHaveBeenCalled();
  });

  it('an incremental run after editing one file changes exactly that file', async () => {
    await sync();
    const before = await files();
    tick();
    edit('team/plan.html', '<h1>Plan</h1><p>v2</p>');
    const summary = await incremental();
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'incremental', counts: { added: 0, changed: 1, unchanged: 0, deleted: 0, failed: 0 } });
    const after = await files();
    for (const [i, r] of after.entries()) {
      if (r.id === 'fs:team/plan.html') {
        expect(r.body_html).toContain('v2');
        expect(r.modified_at).toBe(new Date(clock).toISOString());
      } else {
        expect(r).toEqual(before[i]);
      }
    }
    // Nothing changed since: the next incremental run yields nothing.
    tick();
    expect((await incremental()).counts).toMatchObject({ added: 0, changed: 0, unchanged: 0, deleted: 0 });
  });

  it('an edited binary is re-read; a touched one is not re-served (same bytes, same timestamp)', async () => {
    await sync();
    const before = await row('deck.pdf');
    tick();
    edit('deck.pdf', PDF, 5); // touched: new mtime, same bytes
    const put = jest.spyOn(blobs, 'put');
    expect((await incremental()).counts).toMatchObject({ changed: 0, unchanged: 1 });
    expect(put).toHaveBeenCalledTimes(1);
    expect(await row('deck.pdf')).toEqual(before);
    tick();
    edit('deck.pdf', Buffer.concat([PDF, Buffer.from('more')]), 10);
    expect((await incremental()).counts).toMatchObject({ changed: 1, unchanged: 0 });
    expect((await row('deck.pdf')).sha256).not.toBe(before.sha256);
  });

  it('an incremental run after deleting 3 files yields exactly 3 tombstones', async () => {
    await sync();
    tick();
    for (const rel of ['guide.txt', 'team/slides.pptx', 'team/sub/deep.html']) fs.rmSync(path.join(root, rel));
    const summary = await incremental();
    expect(summary.counts).toMatchObject({ added: 0, changed: 0, unchanged: 0, deleted: 3 });
    const deleted = (await files()).filter((f: { status: string }) => f.status === 'deleted').map((f: { id: string }) => f.id);
    expect(deleted).toEqual(['fs:guide.txt', 'fs:team/slides.pptx', 'fs:team/sub/deep.html']);
    // A new file and a rename: one add, one more tombstone.
    tick();
    fs.renameSync(path.join(root, 'welcome.html'), path.join(root, 'hello.html'));
    writeFiles(root, { 'new.md': '# New\n' });
    expect((await incremental()).counts).toMatchObject({ added: 2, deleted: 1 });
  });

  it("changing a sidecar changes the affected files' permissions and nothing else", async () => {
    await sync();
    const before = await snapshot();
    const perms = await permissions();
    tick();
    writeFiles(root, { 'team/_access.yaml': 'groups: [core]\nfiles:\n  secret.docx: { users: [ana] }\n' });
    const summary = await incremental();
    // plan, slides and sub/deep follow the folder rule; secret.docx keeps its override.
    expect(summary.counts).toMatchObject({ added: 0, changed: 3, unchanged: 1, deleted: 0 });
    expect(await permissions()).toEqual({
      ...perms,
      'fs:team/plan.html': ['GROUP fs:core'],
      'fs:team/slides.pptx': ['GROUP fs:core'],
      'fs:team/sub/deep.html': ['GROUP fs:core'],
    });
    const after = await snapshot();
    expect(after.users).toEqual(before.users);
    expect(after.groups).toEqual(before.groups);
    for (const [i, r] of after.files.entries()) {
      const old = before.files[i];
      if (['fs:team/plan.html', 'fs:team/slides.pptx', 'fs:team/sub/deep.html'].includes(r.id)) {
        expect({ ...r, permissions_modified_at: 'x' }).toEqual({ ...old, permissions_modified_at: 'x' });
        expect(r.permissions_modified_at).toBe(new Date(clock).toISOString());
      } else {
        expect(r).toEqual(old);
      }
    }
    // A change above a folder with its own sidecar does not reach it: private/ keeps "no one".
    tick();
    writeFiles(root, { '_access.yaml': 'public: true\n# reviewed\n' });
    expect((await incremental()).counts).toMatchObject({ changed: 0, unchanged: 5 }); // the 5 public files, re-checked
    expect((await permissions())['fs:private/x.html']).toBeUndefined();
    // Removing a sidecar counts as a change too: team/ falls back to the public root rule.
    tick();
    fs.rmSync(path.join(root, 'team', '_access.yaml'));
    expect((await incremental()).counts).toMatchObject({ changed: 4 });
    expect((await permissions())['fs:team/secret.docx']).toEqual(['GROUP *']);
  });

  it('an unknown principal in a sidecar fails those files only; staged access narrows to what the new rule still grants until it is fixed', async () => {
    await sync();
    tick();
    // A rule that keeps ana, adds a group and names someone unknown: ana keeps the file, eng is not added.
    writeFiles(root, { 'team/_access.yaml': 'groups: [eng]\nfiles:\n  secret.docx: { users: [ana, zed], groups: [eng] }\n' });
    const keeping = await incremental();
    expect(keeping).toMatchObject({ status: 'succeeded', counts: { failed: 1, changed: 0, unchanged: 3 } });
    expect((await permissions())['fs:team/secret.docx']).toEqual(['USER fs:ana']); // never widened
    tick();
    // A rule that withdraws ana and names only someone unknown: served to nobody.
    const before = await row('team/secret.docx');
    writeFiles(root, { 'team/_access.yaml': 'groups: [eng]\nfiles:\n  secret.docx: { users: [zed] }\n' });
    const failing = await incremental();
    expect(failing).toMatchObject({ status: 'succeeded', counts: { failed: 1, changed: 0, unchanged: 3 } });
    expect(failing.failures).toEqual([expect.stringMatching(/^team\/secret\.docx: .*team\/_access\.yaml: unknown user "zed"/)]);
    expect((await permissions())['fs:team/secret.docx']).toBeUndefined(); // narrowed to what the source still grants: nobody
    const narrowed = await row('team/secret.docx');
    expect(narrowed.permissions_modified_at > before.permissions_modified_at).toBe(true);
    expect(narrowed.modified_at).toBe(before.modified_at);
    // A full run reports it too, does not sweep the file, and grants nothing back.
    tick();
    const fullRun = await sync({ mode: 'full' });
    expect(fullRun.counts).toMatchObject({ failed: 1, deleted: 0 });
    expect((await row('team/secret.docx')).status).toBe('active');
    expect((await permissions())['fs:team/secret.docx']).toBeUndefined();
    // Adding zed to the directory fixes it: the failed file is retried.
    tick();
    writeFiles(root, {
      '_directory.yaml': `${DIRECTORY.replace('users:\n', 'users:\n  - { id: zed, email: zed@example.com, full_name: Zed, active: true }\n')}`,
    });
    const fixed = await incremental();
    expect(fixed.counts).toMatchObject({ failed: 0, added: 0, changed: 1 /* secret.docx */ });
    expect(fixed.identities).toMatchObject({ added: 1 /* zed */ });
    expect((await permissions())['fs:team/secret.docx']).toEqual(['USER fs:zed']);
  });

  it('a sidecar that no longer parses serves the files it governs to nobody until it is fixed', async () => {
    await sync();
    expect((await permissions())['fs:team/plan.html']).toEqual(['GROUP fs:eng']);
    tick();
    writeFiles(root, { 'team/_access.yaml': 'groups: [eng\n' });
    const broken = await incremental();
    expect(broken).toMatchObject({ status: 'succeeded', counts: { failed: 4 } });
    const staged = await permissions();
    for (const id of ['plan.html', 'secret.docx', 'slides.pptx', 'sub/deep.html']) expect(staged[`fs:team/${id}`]).toBeUndefined();
    expect((await row('team/plan.html')).status).toBe('active');
    tick();
    writeFiles(root, { 'team/_access.yaml': 'groups: [eng]\n' });
    expect((await incremental()).counts.failed).toBe(0);
    expect((await permissions())['fs:team/plan.html']).toEqual(['GROUP fs:eng']);
  });

  it('a new file under a broken sidecar is not staged at all', async () => {
    writeFiles(root, { 'team/_access.yaml': 'groups: [eng\n' });
    const summary = await sync();
    expect(summary.counts.failed).toBe(4);
    expect((await files()).some((f: { id: string }) => f.id.startsWith('fs:team/'))).toBe(false);
  });

  it('re-reads the directory when it changes: user and group events, and deletes for those gone', async () => {
    await sync();
    tick();
    writeFiles(root, {
      '_directory.yaml': `
users:
  - { id: ana, email: ana@new.example, full_name: Ana, active: true }
  - { id: cy, email: cy@example.com, full_name: Cy, active: true }
groups:
  - { id: eng, name: Engineering, members: [{ user: ana }, { user: cy }] }
`,
    });
    const summary = await incremental();
    // ana changed, cy added, eng changed; bo inactivated and core removed (deletes); files that
    // name core or bo would be re-checked, and none do.
    expect(summary.identities).toMatchObject({ added: 1, changed: 2, deleted: 2 });
    expect(summary.counts).toMatchObject({ added: 0, failed: 0 });
    expect(await t.db('users').orderBy('id').select('id', 'email', 'state')).toEqual([
      { id: 'fs:ana', email: 'ana@new.example', state: 'Active' },
      { id: 'fs:bo', email: 'bo@example.com', state: 'Inactive' },
      { id: 'fs:cy', email: 'cy@example.com', state: 'Active' },
    ]);
    expect(await t.db('groups').orderBy('id').pluck('id')).toEqual(['fs:eng']);
    expect(await t.db('group_members').where({ group_id: 'fs:eng' }).orderBy('member_id').pluck('member_id')).toEqual(['fs:ana', 'fs:cy']);
  });

  it('a directory that becomes malformed fails the run, naming the file, and leaves staging as it was', async () => {
    await sync();
    const before = await snapshot();
    tick();
    writeFiles(root, { '_directory.yaml': 'users: [\n' });
    const summary = await incremental();
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain(`${path.join(root, '_directory.yaml')}: cannot parse`);
    expect(await snapshot()).toEqual(before);
  });

  it('stores a valid checkpoint; files modified during a scan are re-checked next time at no cost', async () => {
    await sync();
    const stored = await new CheckpointsRepository(t.db).load('fs');
    const checkpoint = filesystemCheckpointSchema.parse(stored);
    // Every file's version is kept with its staged row, not in the checkpoint.
    expect(Number((await t.db('files').where({ source: 'fs' }).whereNull('source_version').count({ n: '*' }).first())?.n)).toBe(0);
    expect(Object.keys(checkpoint.sidecars).sort()).toEqual(['_access.yaml', 'private/_access.yaml', 'team/_access.yaml']);
    expect(checkpoint.directory.users).toEqual(['ana', 'bo']);
    // Written "now": racy, so the next run looks again, and finds nothing to change.
    writeFiles(root, { 'fresh.html': '<h1>Fresh</h1>' }, new Date());
    tick();
    expect((await incremental()).counts).toMatchObject({ added: 1 });
    const fresh = await row('fresh.html');
    tick();
    expect((await incremental()).counts).toMatchObject({ added: 0, changed: 0, unchanged: 1 });
    expect(await row('fresh.html')).toEqual(fresh);
  });

  it('an incremental run that would delete most files hands over to a full run and its mass-deletion guard', async () => {
    await sync();
    tick();
    for (const entry of fs.readdirSync(root)) if (!entry.startsWith('_')) fs.rmSync(path.join(root, entry), { recursive: true });
    const summary = await incremental();
    expect(summary).toMatchObject({ mode: 'full', status: 'blocked', fellBackToFull: expect.stringMatching(/^10 of 10 files disappeared/) });
    expect((await files()).every((f: { status: string }) => f.status === 'active')).toBe(true);
  });

  it('logs the skipped unsupported files by extension', async () => {
    const lines: Array<Record<string, unknown>> = [];
    await sync({}, pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) }));
    expect(lines.find((l) => 'byExtension' in l)).toMatchObject({ source: 'fs', skipped: 2, byExtension: { '.csv': 1, '.zip': 1 } });
  });

  it('cancels cleanly when the run is aborted: nothing swept', async () => {
    await sync();
    tick();
    for (const rel of ['guide.txt', 'team/slides.pptx']) fs.rmSync(path.join(root, rel));
    const controller = new AbortController();
    // Aborted mid-walk: after the first batch of events is committed.
    const summary = await runSync(
      adapter,
      { db: t.db, blobs, logger: pino({ level: 'silent' }), now, signal: controller.signal },
      { mode: 'full', batchSize: 2, onProgress: () => controller.abort() },
    );
    expect(summary.status).toBe('cancelled');
    expect((await files()).every((f: { status: string }) => f.status === 'active')).toBe(true);
  });
});
