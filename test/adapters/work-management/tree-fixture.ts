import pino from 'pino';
import { createWorkManagementAdapter, type WorkManagementAdapter, type WorkManagementAdapterOptions } from '../../../src/adapters/work-management';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync } from '../../../src/sync/run-sync';
import type { RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import type { TestDatabase } from '../../helpers/test-databases';

/** Shared by the tests of trees of tasks in no project: building them in the mock, syncing them. */

/** Adds a task through the mock's admin API (in its organization unless `data` says otherwise); its gid. */
export async function addTask(m: RunningMock, data: Record<string, unknown>): Promise<string> {
  const res = await m.call<{ data: { gid: string } }>('/_admin/tasks', { method: 'POST', body: { workspace: m.mock.organization.organization, ...data } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST /_admin/tasks: ${res.status} ${res.text}`);
  return res.body.data.gid;
}

/** The organization's active members. */
export function activeMembers(m: RunningMock): string[] {
  const org = m.mock.organization.organization;
  return [...m.mock.model.indexes.workspaceMemberships.values()].filter((w) => w.workspace === org && w.isActive).map((w) => w.user);
}

/**
 * The adapter on per-project streams, and its runs into `t` without access reconciliation (the
 * events and the re-reads alone), through `base` (default: the mock's own server).
 */
export function projectStreamsSync(
  m: RunningMock,
  t: TestDatabase,
  blobDir: string,
  base = m.base,
  options: WorkManagementAdapterOptions = {},
): { adapter: WorkManagementAdapter; sync: (mode: 'full' | 'auto') => ReturnType<typeof runSync> } {
  const adapter = createWorkManagementAdapter(
    { baseUrl: base, token: m.mock.token, workspace: m.mock.organization.organization, eventStreams: 'projects' },
    options,
  );
  const logger = pino({ level: 'silent' });
  return { adapter, sync: (mode) => runSync(adapter, { db: t.db, blobs: new FsBlobStore(blobDir), logger }, { mode, reconcile: false }) };
}
