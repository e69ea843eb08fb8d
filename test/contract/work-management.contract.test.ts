import { createWorkManagementAdapter } from '../../src/adapters/work-management';
import type { Task } from '@content-gateway/kit/src/mocks/work-management/model';
import { startMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { describeAdapterContract } from './describe-adapter-contract';

/**
 * The work-management adapter against the mock of the API, started in-process on 127.0.0.1:0
 * with a tiny generated organization (guests, an inactive user, every privacy setting, subtasks,
 * tasks in no project, one attachment of each kind). Mutations go through the mock's model and
 * its `/_admin` endpoints, so they land in the events stream as real changes do.
 */
describeAdapterContract('work-management', async () => {
  const m = await startMock({ seed: 'contract', size: 'tiny' });
  const org = m.mock.organization.organization;
  const store = m.mock.model;
  /** Top-level tasks whose deletion removes exactly one file: no attachment, no subtask, no parent. */
  const standalone = (): Task[] =>
    [...store.indexes.tasks.values()].filter(
      (t) =>
        t.workspace === org &&
        t.parent === null &&
        (store.indexes.subtasksByTask.get(t.gid)?.length ?? 0) === 0 &&
        (store.indexes.attachmentsByParent.get(t.gid)?.length ?? 0) === 0,
    );
  let edits = 0;
  return {
    adapter: createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token }),
    mutate: {
      deleteSomeFiles: async (n) => {
        const victims = standalone().slice(0, n);
        const res = await m.call('/_admin/tasks/delete', { body: { gids: victims.map((t) => t.gid) } });
        if (res.status !== 200) throw new Error(`delete failed: ${res.text}`);
        return victims.map((t) => `task:${t.gid}`);
      },
      changeOneFile: async () => {
        const task = standalone()[0];
        if (!task) throw new Error('no task to change');
        const res = await m.call(`/_admin/tasks/${task.gid}`, { method: 'PUT', body: { notes: `Edited ${++edits} times.` } });
        if (res.status !== 200) throw new Error(`edit failed: ${res.text}`);
        return `task:${task.gid}`;
      },
    },
    cleanup: () => m.close(),
  };
});
