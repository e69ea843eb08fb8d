import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/staging/database/create-db';
import { runCli, summaryOf } from '../e2e/cli-process';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';

jest.setTimeout(90_000);

/**
 * `sync work-management` through the front door (the CLI as a child process) against the mock
 * on loopback: a deletion whose event the service never delivers is found by access
 * reconciliation, and the summary line and `sync_runs` say so.
 */
describe('content-gateway sync work-management, when the service loses an event', () => {
  let m: RunningMock;
  let dir: string;
  beforeAll(async () => {
    m = await startMock({
      seed: 'cli-lossy',
      size: { tasks: 60, personalWorkspace: false },
      hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 },
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-wm-'));
  });
  afterAll(async () => {
    await m.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('tombstones the task at the next incremental run and reports the change no event announced', async () => {
    const env = {
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      WORK_MANAGEMENT_BASE_URL: m.base,
      WORK_MANAGEMENT_TOKEN: m.mock.token,
    };
    expect(summaryOf((await runCli(['sync', 'work-management'], env)).stdout)).toMatchObject({ mode: 'full', status: 'succeeded' });

    const org = m.mock.organization.organization;
    const store = m.mock.model;
    const task = [...store.indexes.tasks.values()].find(
      (t) =>
        t.workspace === org &&
        t.memberships.length > 0 &&
        t.parent === null &&
        !store.indexes.subtasksByTask.get(t.gid)?.length &&
        !store.indexes.attachmentsByParent.get(t.gid)?.length,
    );
    if (!task) throw new Error('the organization has no plain task in a project');
    m.mock.setHostility({ eventLossRate: 1 });
    expect((await m.call(`/_admin/tasks/${task.gid}`, { method: 'DELETE' })).status).toBe(200);
    m.mock.setHostility({ eventLossRate: 0 });

    const r = await runCli(['sync', 'work-management'], env);
    const line = summaryOf(r.stdout);
    expect(line).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { deleted: 1, failed: 0 } });
    expect(line.line).toMatch(/reconciled against \d+ listed files, changes no event announced: 1 \(access lists 0, deletions 1, files read again 0\)$/);
    const db = createDb({ sqlitePath: env.SQLITE_PATH });
    try {
      expect(
        (
          await db('files')
            .where({ id: `work-management:task:${task.gid}` })
            .first()
        ).status,
      ).toBe('deleted');
      expect((await db('sync_runs').orderBy('id', 'desc').first()).unannounced).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
