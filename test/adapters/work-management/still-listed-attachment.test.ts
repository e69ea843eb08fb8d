import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createWorkManagementAdapter } from '../../../src/adapters/work-management';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess, stagedFiles } from './staged-access';

/**
 * An attachment-deleted event for an attachment its task still lists when read again (deleted,
 * then restored with the restore's event lost: the mock has no attachment trash, so the deletion
 * event is recorded alone), then its task deleted. The incremental run after the task's deletion
 * reports success: the attachment must be deleted with its task, with access reconciliation and
 * without it (`reconcile: false`, the harness's --no-reconcile).
 */
const logger = pino({ level: 'silent' });
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;

describe('work-management: an attachment an event called deleted but its task still lists', () => {
  let m: RunningMock;
  let t: TestDatabase;
  let blobDir: string;
  beforeEach(async () => {
    m = await startMock({ seed: 'still-listed', size: 'tiny' });
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-still-listed-'));
  });
  afterEach(async () => {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it.each([true, false])(
    'is deleted with its task later (access reconciliation: %s)',
    async (reconcile) => {
      const adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token, workspace: m.mock.organization.organization });
      const sync = (mode: 'full' | 'auto') => runSync(adapter, { db: t.db, blobs: new FsBlobStore(blobDir), logger }, { mode, reconcile });
      expect((await sync('full')).status).toBe('succeeded');

      const s = m.mock.model;
      const synced = (await stagedFiles(t.db, adapter.name)).active;
      const attachment = [...s.indexes.attachments.values()].find(
        (a) => a.host === 'asana' && SUPPORTED.test(a.name) && s.indexes.tasks.has(a.parent) && synced.has(`attachment:${a.gid}`),
      );
      if (!attachment) throw new Error('the generated organization has no synced task attachment');
      const task = s.indexes.tasks.get(attachment.parent);
      if (!task) throw new Error(`task ${attachment.parent} not found`);
      s.recorder.record('deleted', s.recorder.ref('attachment', attachment.gid, attachment.name), s.recorder.taskRef(task), s.recorder.taskScopes(task));

      const first = await sync('auto');
      expect({ mode: first.mode, status: first.status }).toEqual({ mode: 'incremental', status: 'succeeded' });
      expect((await stagedFiles(t.db, adapter.name)).active).toContain(`attachment:${attachment.gid}`);

      const deleted = await m.call(`/_admin/tasks/${task.gid}`, { method: 'DELETE' });
      expect(deleted.status).toBeLessThan(300);
      const second = await sync('auto');
      expect({ mode: second.mode, status: second.status, failures: second.failures }).toEqual({ mode: 'incremental', status: 'succeeded', failures: [] });
      const after = await stagedFiles(t.db, adapter.name);
      expect({ task: after.active.has(`task:${task.gid}`), attachment: after.active.has(`attachment:${attachment.gid}`) }).toEqual({
        task: false,
        attachment: false,
      });
      expect((await stagedAccess(t.db, adapter.name)).get(`attachment:${attachment.gid}`)).toBeUndefined();
    },
    60_000,
  );
});
