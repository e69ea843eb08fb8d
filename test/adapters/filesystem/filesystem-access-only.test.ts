import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createFilesystemAdapter } from '../../../src/adapters/filesystem';
import * as reads from '../../../src/adapters/filesystem/filesystem-reads';
import { EffectiveAccess } from '../../../src/conformance/access/effective-access';
import { SyncLock } from '../../../src/staging/repositories/sync-lock';
import { runAccessSync } from '../../../src/sync/run-access-sync';
import { runSync } from '../../../src/sync/run-sync';
import { crawlAccess } from '../../helpers/crawl-access';
import { databaseKinds } from '../../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { makeTree, removeTrees } from './tree-fixture';

const logger = pino({ level: 'silent' });
const directory = (team: string[], cyActive = true) => `
users:
  - { id: ana, email: ana@example.com, full_name: Ana, active: true }
  - { id: bo, email: bo@example.com, full_name: Bo, active: true }
  - { id: cy, email: cy@example.com, full_name: Cy, active: ${cyActive} }
groups:
  - { id: team, name: Team, members: [${team.map((u) => `{ user: ${u} }`).join(', ')}] }
`;

/**
 * Access-only runs of the filesystem adapter through the real engine and a served gateway: a
 * membership removed and a user deactivated in the directory file, and a user taken out of a
 * sidecar, show on /v1 after an access-only run that opens no file's content and runs while a
 * content run holds the source's lock; a sidecar it cannot resolve narrows the files it governs
 * (as a content run does); a directory file or sidecar it cannot read fails the run and leaves
 * what staging serves.
 */
describe.each(databaseKinds)('access-only runs of the filesystem adapter (%s staging, through the gateway API)', (kind) => {
  let gw: TestGateway;
  let root: string;
  let clock: number;
  const deps = () => {
    clock += 60_000;
    const at = clock;
    return { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(at) };
  };
  const adapter = () => createFilesystemAdapter({ root, sourceName: 'fs', workerThread: false });
  const emailsWhoSee = async (relativePath: string): Promise<string[]> => {
    const crawled = await crawlAccess(gw.url, TEST_KEYS[0]);
    const file = crawled.files.find((f) => f.id.endsWith(relativePath));
    const who = new EffectiveAccess(crawled).whoCanSee(file?.id ?? relativePath);
    return (who?.users ?? []).map((u) => u.email ?? u.id).sort();
  };
  const write = (rel: string, text: string) => fs.writeFileSync(path.join(root, rel), text);

  beforeEach(async () => {
    gw = await startTestGateway(kind);
    root = makeTree({
      '_directory.yaml': directory(['ana', 'bo']),
      'team/_access.yaml': 'groups: [team]\n',
      'team/page.md': '# Team page\n',
      'direct/_access.yaml': 'users: [ana, bo, cy]\n',
      'direct/notes.txt': 'notes',
    });
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await gw.close();
  });
  afterAll(() => removeTrees());

  it('applies a removed membership, a deactivated user and a sidecar change without opening a file, beside a content run', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { added: 2 } });
    expect(await emailsWhoSee('team/page.md')).toEqual(['ana@example.com', 'bo@example.com']);
    expect(await emailsWhoSee('direct/notes.txt')).toEqual(['ana@example.com', 'bo@example.com', 'cy@example.com']);

    write('_directory.yaml', directory(['ana'], false));
    write('direct/_access.yaml', 'users: [ana, cy]\n');
    // Every file the run opens goes through node:fs (a module's own exports are not spied on: they
    // are read-only bindings); only the directory file and the sidecars may be among them.
    const opens = [jest.spyOn(fs, 'openSync'), jest.spyOn(fs, 'readFileSync'), jest.spyOn(fs.promises, 'readFile'), jest.spyOn(fs, 'createReadStream')];
    const binaryOpens = jest.spyOn(reads.WalkedBinaryContent.prototype, 'open');
    const held = new SyncLock(gw.database.db, 'fs');
    await held.acquire();
    try {
      expect(await runAccessSync(adapter(), deps())).toMatchObject({ mode: 'access', status: 'succeeded', reconciliation: { listed: 2, accessRewritten: 1 } });
    } finally {
      await held.release();
    }
    const contentFiles = opens
      .flatMap((spy) => spy.mock.calls.map((call: unknown[]) => call[0]))
      .filter((file) => typeof file !== 'string' || !/(^|\/)_(access|directory)\.yaml$/.test(file));
    expect({ contentFiles, binaryOpens: binaryOpens.mock.calls.length }).toEqual({ contentFiles: [], binaryOpens: 0 });
    expect(await emailsWhoSee('team/page.md')).toEqual(['ana@example.com']);
    expect(await emailsWhoSee('direct/notes.txt')).toEqual(['ana@example.com']);

    // A user gone from the directory file (the last content run yielded them) is deleted: Inactive.
    write('_directory.yaml', directory(['ana'], false).replace(/ {2}- \{ id: bo, .*\n/, ''));
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'succeeded' });
    expect(await gw.database.db('users').where({ id: 'fs:bo' }).first('state')).toEqual({ state: 'Inactive' });
  });

  // Fail closed, as a content run: a sidecar edited to withdraw a reader and name someone the
  // directory lacks narrows its files to the readers it still names; one that no longer parses
  // narrows its folder's subtree to nobody. Each file is a failure naming the sidecar; the rest is applied.
  it('narrows the files of a sidecar naming someone unknown, and the subtree of one that does not parse, and applies the rest', async () => {
    fs.mkdirSync(path.join(root, 'team/sub'));
    write('team/sub/deep.md', '# Deep\n');
    expect(await runSync(adapter(), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { added: 3 } });
    expect(await emailsWhoSee('team/sub/deep.md')).toEqual(['ana@example.com', 'bo@example.com']);

    write('direct/_access.yaml', 'users: [ana, cy, zed]\n');
    write('_directory.yaml', directory(['ana']));
    const first = await runAccessSync(adapter(), deps());
    expect(first).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 1 } });
    expect(first.failures).toEqual([expect.stringMatching(/^direct\/notes\.txt: .*direct\/_access\.yaml: unknown user "zed"/)]);
    expect(await emailsWhoSee('direct/notes.txt')).toEqual(['ana@example.com', 'cy@example.com']);
    expect(await emailsWhoSee('team/page.md')).toEqual(['ana@example.com']);

    write('team/_access.yaml', 'groups: [team\n');
    const second = await runAccessSync(adapter(), deps());
    expect(second).toMatchObject({ status: 'succeeded', counts: { failed: 3 } });
    expect(second.failures.filter((f) => f.includes('team/_access.yaml'))).toHaveLength(2);
    expect(await emailsWhoSee('team/page.md')).toEqual([]);
    expect(await emailsWhoSee('team/sub/deep.md')).toEqual([]);
    expect(await emailsWhoSee('direct/notes.txt')).toEqual(['ana@example.com', 'cy@example.com']);
  });

  it('fails the run and keeps what is served when the directory file cannot be read, or a sidecar cannot be read (an I/O error)', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    write('_directory.yaml', 'users: [not, a, list, of, users');
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'failed', error: expect.stringContaining('_directory.yaml') });
    expect(await emailsWhoSee('team/page.md')).toEqual(['ana@example.com', 'bo@example.com']);

    write('_directory.yaml', directory(['ana', 'bo']));
    write('direct/_access.yaml', 'users: [ana]\n');
    const readFile = fs.promises.readFile.bind(fs.promises);
    jest.spyOn(fs.promises, 'readFile').mockImplementation(async (file, options) => {
      if (String(file).endsWith(path.join('direct', '_access.yaml'))) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
      return readFile(file, options);
    });
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'failed', error: expect.stringMatching(/_access\.yaml: cannot be read: EIO/) });
    expect(await emailsWhoSee('direct/notes.txt')).toEqual(['ana@example.com', 'bo@example.com', 'cy@example.com']);
  });
});
