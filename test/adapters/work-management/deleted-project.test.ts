import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess } from './staged-access';
import { activeMembers, addTask, projectStreamsSync } from './tree-fixture';

/**
 * A project is deleted; its task (in no other project, unassigned, one user follows it) stays,
 * in no project now. The `removed` events were in the project's stream, which is gone (404) by
 * the next run. Per-project streams, no access reconciliation: a later change to the task must
 * still be seen.
 */
describe('work-management: the tasks of a deleted project (per-project streams)', () => {
  let m: RunningMock;
  let t: TestDatabase;
  let blobDir: string;

  beforeEach(async () => {
    m = await startMock({ seed: 'deleted-project', size: 'tiny' });
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-delproj-'));
  });
  afterEach(async () => {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  // The project's stream is gone (404) once it is deleted, so its `removed` events are never read:
  // the next incremental run requires a full one, which gives the task, now a project-less root, a
  // stream of its own.
  it('a follower removed after the project was deleted no longer sees the task', async () => {
    const org = m.mock.organization.organization;
    const project = [...m.mock.model.indexes.projects.values()].find((p) => p.workspace === org)?.gid;
    const [follower] = activeMembers(m);
    if (!follower || !project) throw new Error('no member or project');
    const task = await addTask(m, { name: 'Only here', projects: [project], followers: [follower] });
    const { adapter, sync: run } = projectStreamsSync(m, t, blobDir);
    const sync = async (mode: 'full' | 'auto') => {
      const summary = await run(mode);
      expect({ status: summary.status, failures: summary.failures }).toEqual({ status: 'succeeded', failures: [] });
    };
    await sync('full');
    expect((await stagedAccess(t.db, adapter.name)).get(`task:${task}`)).toContain(follower);
    expect((await m.api(`/projects/${project}`, { method: 'DELETE' })).status).toBeLessThan(300);
    await sync('auto');
    expect((await m.call(`/_admin/tasks/${task}/followers`, { method: 'POST', body: { remove: [follower] } })).status).toBeLessThan(300);
    await sync('auto');
    expect((await stagedAccess(t.db, adapter.name)).get(`task:${task}`) ?? new Set()).not.toContain(follower);
  });
});
