import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess, stagedFiles } from './staged-access';
import { activeMembers, addTask, projectStreamsSync } from './tree-fixture';

/**
 * A task in a project heads subtasks in no project (unassigned, one user follows each): their
 * events reach the project's stream through it. In one round it leaves its project, then a
 * subtask changes: that change reaches no project stream, and the task's own stream starts only
 * with the run that sees it leave. Per-project streams, no access reconciliation.
 */
describe('work-management: a task that leaves its last project, then its subtree changes in the same round (per-project streams)', () => {
  let m: RunningMock;
  let t: TestDatabase;
  let blobDir: string;
  let tree: { root: string; middle: string; leaf: string; follower: string; project: string };

  beforeEach(async () => {
    m = await startMock({ seed: 'new-root-subtree', size: 'tiny' });
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-newroot-'));
    const org = m.mock.organization.organization;
    const project = [...m.mock.model.indexes.projects.values()].find((p) => p.workspace === org && !p.archived)?.gid;
    const [follower, other] = activeMembers(m);
    if (!follower || !other || !project) throw new Error('the generated organization lacks two active members or a project');
    const add = (data: Record<string, unknown>) => addTask(m, data);
    const root = await add({ name: 'Root in a project', projects: [project], followers: [other] });
    const middle = await add({ name: 'Subtask in no project', parent: root, followers: [follower] });
    const leaf = await add({ name: 'Sub-subtask in no project', parent: middle, followers: [follower] });
    tree = { root, middle, leaf, follower, project };
  });
  afterEach(async () => {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  async function fullRun(): Promise<() => ReturnType<typeof runSync>> {
    const { adapter, sync } = projectStreamsSync(m, t, blobDir);
    expect((await sync('full')).status).toBe('succeeded');
    const access = await stagedAccess(t.db, adapter.name);
    expect({ middle: access.get(`task:${tree.middle}`)?.has(tree.follower), leaf: access.get(`task:${tree.leaf}`)?.has(tree.follower) }).toEqual({
      middle: true,
      leaf: true,
    });
    return async () => {
      const run = await sync('auto');
      expect({ mode: run.mode, status: run.status, failures: run.failures }).toEqual({ mode: 'incremental', status: 'succeeded', failures: [] });
      return run;
    };
  }

  async function leave(): Promise<void> {
    const res = await m.api(`/tasks/${tree.root}/removeProject`, { body: { data: { project: tree.project } } });
    expect(res.status).toBeLessThan(300);
  }

  it('a follower removed from a sub-subtask no longer sees it', async () => {
    const next = await fullRun();
    await leave();
    expect((await m.call(`/_admin/tasks/${tree.leaf}/followers`, { method: 'POST', body: { remove: [tree.follower] } })).status).toBeLessThan(300);
    await next();
    expect((await stagedAccess(t.db, 'work-management')).get(`task:${tree.leaf}`) ?? new Set()).not.toContain(tree.follower);
  });

  it('a subtask deleted is no longer served, nor its own subtask', async () => {
    const next = await fullRun();
    await leave();
    expect((await m.call(`/_admin/tasks/${tree.middle}`, { method: 'DELETE' })).status).toBeLessThan(300);
    await next();
    const staged = (await stagedFiles(t.db, 'work-management')).active;
    expect({ middle: staged.has(`task:${tree.middle}`), leaf: staged.has(`task:${tree.leaf}`) }).toEqual({ middle: false, leaf: false });
  });
});
