import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess, stagedFiles } from './staged-access';
import { activeMembers, addTask, projectStreamsSync } from './tree-fixture';

/**
 * A tree of tasks in no project, on per-project streams and without access reconciliation (the
 * events and the re-reads alone): its root has no assignee, so no listing reaches it; its subtask
 * is assigned (a task list reaches it) and has a subtask of its own, followed by one user. No
 * project stream carries the tree's events: the root's own stream must, though the run never read
 * the root. Deleting the root deletes the tree; a follower removed deep down loses the task.
 */
describe('work-management: a tree of tasks in no project, its root reached by no listing (per-project streams)', () => {
  let m: RunningMock;
  let t: TestDatabase;
  let blobDir: string;
  let tree: { root: string; middle: string; leaf: string; follower: string };

  beforeEach(async () => {
    m = await startMock({ seed: 'project-less-tree', size: 'tiny' });
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-tree-'));
    const [assignee, follower, rootFollower] = activeMembers(m);
    if (!assignee || !follower || !rootFollower) throw new Error('the generated organization has fewer than three active members');
    const add = (data: Record<string, unknown>) => addTask(m, data);
    const root = await add({ name: 'Root in no project', followers: [rootFollower] });
    const middle = await add({ name: 'Assigned subtask', parent: root, assignee });
    const leaf = await add({ name: 'Followed sub-subtask', parent: middle, followers: [follower] });
    tree = { root, middle, leaf, follower };
  });
  afterEach(async () => {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  /** A full run (which reaches the subtasks, not the root), then what `auto` runs next. */
  async function fullRun(): Promise<() => ReturnType<typeof runSync>> {
    const { adapter, sync } = projectStreamsSync(m, t, blobDir);
    expect((await sync('full')).status).toBe('succeeded');
    const staged = (await stagedFiles(t.db, adapter.name)).active;
    expect({ root: staged.has(`task:${tree.root}`), middle: staged.has(`task:${tree.middle}`), leaf: staged.has(`task:${tree.leaf}`) }).toEqual({
      root: false,
      middle: true,
      leaf: true,
    });
    expect((await stagedAccess(t.db, adapter.name)).get(`task:${tree.leaf}`)).toContain(tree.follower);
    return async () => {
      const run = await sync('auto');
      expect({ mode: run.mode, status: run.status, failures: run.failures }).toEqual({ mode: 'incremental', status: 'succeeded', failures: [] });
      return run;
    };
  }

  it('deleting the root deletes its subtasks at every depth', async () => {
    const next = await fullRun();
    expect((await m.call(`/_admin/tasks/${tree.root}`, { method: 'DELETE' })).status).toBeLessThan(300);
    await next();
    const staged = (await stagedFiles(t.db, 'work-management')).active;
    expect({ middle: staged.has(`task:${tree.middle}`), leaf: staged.has(`task:${tree.leaf}`) }).toEqual({ middle: false, leaf: false });
  });

  it('a follower removed from the sub-subtask no longer sees it', async () => {
    const next = await fullRun();
    expect((await m.call(`/_admin/tasks/${tree.leaf}/followers`, { method: 'POST', body: { remove: [tree.follower] } })).status).toBeLessThan(300);
    await next();
    expect((await stagedAccess(t.db, 'work-management')).get(`task:${tree.leaf}`) ?? new Set()).not.toContain(tree.follower);
  });

  it('a root whose record keeps failing (500) leaves the stream on the subtask below it: runs succeed, a follower removed then deleting the root are seen', async () => {
    // The adapter reaches the mock through a server that answers 500 to every read of the root's
    // record (the walk up `parent`), on which the client's retries give up.
    let refused = 0;
    const failing = http.createServer((req, res) => {
      if (req.method !== 'GET' || !req.url?.startsWith(`/api/1.0/tasks/${tree.root}?`)) return void m.mock.app(req, res);
      refused += 1;
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Server Error', phrase: 'failing root' }] }));
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/api/1.0`;
      const { adapter, sync } = projectStreamsSync(m, t, blobDir, base, { batch: false, http: { sleep: async () => undefined } });
      const run = async (mode: 'full' | 'auto') => {
        const summary = await sync(mode);
        expect({ status: summary.status, failures: summary.failures, error: summary.error }).toEqual({ status: 'succeeded', failures: [], error: undefined });
      };
      await run('full');
      await m.call(`/_admin/tasks/${tree.leaf}/followers`, { method: 'POST', body: { remove: [tree.follower] } });
      await run('auto');
      expect((await stagedAccess(t.db, adapter.name)).get(`task:${tree.leaf}`) ?? new Set()).not.toContain(tree.follower);
      await m.call(`/_admin/tasks/${tree.root}`, { method: 'DELETE' });
      await run('auto');
      const staged = (await stagedFiles(t.db, adapter.name)).active;
      expect({ refused: refused > 0, middle: staged.has(`task:${tree.middle}`), leaf: staged.has(`task:${tree.leaf}`) }).toEqual({
        refused: true,
        middle: false,
        leaf: false,
      });
    } finally {
      failing.closeAllConnections();
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('a subtask moved out of the tree to no parent while a full run reads it, before the root stream starts, gets a stream of its own', async () => {
    // As below: when the root's stream is asked for its first token, the sub-subtask is first
    // moved to no parent. Its move's events precede the token; its deletion afterwards reaches
    // only its own stream.
    let moved = false;
    const hooked = http.createServer((req, res) => {
      const bootstrap = !moved && req.url?.startsWith('/api/1.0/events?') === true && req.url.includes(`resource=${tree.root}`);
      if (!bootstrap) return void m.mock.app(req, res);
      moved = true;
      void m.api(`/tasks/${tree.leaf}/setParent`, { body: { data: { parent: null } } }).then(() => m.mock.app(req, res));
    });
    await new Promise<void>((resolve) => hooked.listen(0, '127.0.0.1', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(hooked.address() as AddressInfo).port}/api/1.0`;
      const { adapter, sync } = projectStreamsSync(m, t, blobDir, base, { batch: false });
      expect((await sync('full')).status).toBe('succeeded');
      expect(await m.call(`/_admin/tasks/${tree.leaf}`, { method: 'DELETE' })).toMatchObject({ status: 200 });
      const run = await sync('auto');
      expect({ moved, mode: run.mode, status: run.status, failures: run.failures }).toEqual({
        moved: true,
        mode: 'incremental',
        status: 'succeeded',
        failures: [],
      });
      expect((await stagedFiles(t.db, adapter.name)).active.has(`task:${tree.leaf}`)).toBe(false);
    } finally {
      hooked.closeAllConnections();
      await new Promise<void>((resolve) => hooked.close(() => resolve()));
    }
  });

  it('what changes in the tree while a full run reads it, before the root stream starts, is read again', async () => {
    // The adapter talks to the mock through a server that, when the root's stream is asked for
    // its first token (no batching, so that request is seen alone), first removes the follower
    // and deletes a second subtask: their events precede the token, so no stream will carry them.
    const second = await addTask(m, { name: 'Deleted mid-run', parent: tree.middle, followers: [tree.follower] });
    let changed = false;
    const hooked = http.createServer((req, res) => {
      const bootstrap = !changed && req.url?.startsWith('/api/1.0/events?') === true && req.url.includes(`resource=${tree.root}`);
      if (!bootstrap) return void m.mock.app(req, res);
      changed = true;
      void (async () => {
        await m.call(`/_admin/tasks/${tree.leaf}/followers`, { method: 'POST', body: { remove: [tree.follower] } });
        await m.call(`/_admin/tasks/${second}`, { method: 'DELETE' });
        m.mock.app(req, res);
      })();
    });
    await new Promise<void>((resolve) => hooked.listen(0, '127.0.0.1', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(hooked.address() as AddressInfo).port}/api/1.0`;
      const { adapter, sync } = projectStreamsSync(m, t, blobDir, base, { batch: false });
      for (const mode of ['full', 'auto'] as const) {
        const run = await sync(mode);
        expect({ mode: run.mode, status: run.status, failures: run.failures }).toEqual({
          mode: mode === 'auto' ? 'incremental' : 'full',
          status: 'succeeded',
          failures: [],
        });
        const access = await stagedAccess(t.db, adapter.name);
        expect({ changed, leaf: [...(access.get(`task:${tree.leaf}`) ?? [])].includes(tree.follower), second: access.has(`task:${second}`) }).toEqual({
          changed: true,
          leaf: false,
          second: false,
        });
      }
    } finally {
      hooked.closeAllConnections();
      await new Promise<void>((resolve) => hooked.close(() => resolve()));
    }
  });
});
