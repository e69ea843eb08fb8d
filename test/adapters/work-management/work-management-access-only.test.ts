import pino from 'pino';
import { createWorkManagementAdapter, type WorkManagementAdapter } from '../../../src/adapters/work-management';
import { SyncLock } from '../../../src/staging/repositories/sync-lock';
import { runAccessSync } from '../../../src/sync/run-access-sync';
import { runSync } from '../../../src/sync/run-sync';
import type { Task } from '@content-gateway/kit/src/mocks/work-management/model';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { databaseKinds } from '../../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../../helpers/test-gateway';
import { compare } from './oracle-comparison';

const logger = pino({ level: 'silent' });
/** A request that reads content: a task's notes, its comments (stories), an attachment's download. */
const READS_CONTENT = /notes|stories|download_url/;
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;

/**
 * Access-only runs of the work-management adapter through the real engine and a served gateway,
 * against the mock's visibility oracle: a project member removed, a team taken off a project, a
 * follower removed and a user deactivated are applied by an access-only run (every file's access
 * equals the oracle's again, the follower is gone from /v1), which reads no notes, comments or
 * attachments and runs while a content run holds the source's lock. A directory it cannot read
 * fails the run and leaves what staging serves.
 */
describe.each(databaseKinds)('access-only runs of the work-management adapter (%s staging, through the gateway API)', (kind) => {
  let m: RunningMock;
  let gw: TestGateway;
  let adapter: WorkManagementAdapter;
  let sent: string[];
  let failDirectory: boolean;
  let clock: number;
  const deps = () => {
    clock += 60_000;
    const at = clock;
    return { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(at) };
  };
  const mismatches = async () => (await compare(m, gw.database, adapter.name)).mismatches;
  const admin = async (p: string, method: string, body?: unknown): Promise<void> => {
    const res = await m.call(p, { method, ...(body === undefined ? {} : { body }) });
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
  };
  const permissionsOf = async (fileId: string): Promise<string[]> => {
    const res = await gw.get(`/v1/files/${fileId}/permissions?$top=100`, AUTH);
    if (res.status !== 200) throw new Error(`${fileId}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { value: { permissions: Array<{ type: string; id: string }> } }).value.permissions.map((p) => `${p.type} ${p.id}`);
  };

  beforeEach(async () => {
    m = await startMock({ seed: 'access-only', size: { tasks: 120, portfolioAccessInheritanceRatio: 0.5, limitedAccessRatio: 0.1 } });
    gw = await startTestGateway(kind);
    sent = [];
    failDirectory = false;
    const recording: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      sent.push(`${url} ${typeof init?.body === 'string' ? init.body : ''}`);
      if (failDirectory && /workspace_memberships/.test(url)) return new Response('{"errors":[{"message":"boom"}]}', { status: 400 });
      return fetch(input, init);
    };
    adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token }, { http: { fetch: recording }, batch: false });
    clock = Date.parse('2026-06-01T00:00:00Z');
  });
  afterEach(async () => {
    await m.close();
    await gw.close();
  });

  it('applies removed members, a removed follower and a deactivation without reading content, beside a content run', async () => {
    expect(await runSync(adapter, deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    expect(await mismatches()).toEqual([]);
    const store = m.mock.model;
    const org = m.mock.organization.organization;
    const privateProject = [...store.indexes.projects.values()].find(
      (p) => p.workspace === org && p.privacySetting === 'private' && store.projects.userMembers(p.gid).length > 1,
    ) as { gid: string };
    const removedMember = store.projects.userMembers(privateProject.gid).find((u) => u !== store.indexes.projects.get(privateProject.gid)?.owner) as string;
    await admin(`/_admin/projects/${privateProject.gid}/members/${removedMember}`, 'DELETE');
    const shared = [...store.indexes.projects.values()].find(
      (p) => p.workspace === org && p.privacySetting === 'private' && store.projects.memberships(p.gid).some((x) => x.memberType === 'team'),
    );
    const removedTeam = shared && store.projects.memberships(shared.gid).find((x) => x.memberType === 'team')?.member;
    if (shared && removedTeam) await admin(`/_admin/projects/${shared.gid}/members/${removedTeam}`, 'DELETE');
    // A task with a synced attachment: the attachment, listed from the checkpoint, loses the follower too.
    const attachmentOf = (t: Task) =>
      store.indexes.list(store.indexes.attachmentsByParent.get(t.gid), store.indexes.attachments).find((a) => a.host === 'asana' && SUPPORTED.test(a.name));
    const followed = [...store.indexes.tasks.values()].find(
      (t) => t.workspace === org && t.followers.some((u) => u !== t.assignee) && t.memberships.length > 0 && t.parent === null && attachmentOf(t),
    ) as Task;
    const attachment = `${adapter.name}:attachment:${attachmentOf(followed)?.gid}`;
    const unfollowed = followed.followers.find((u) => u !== followed.assignee) as string;
    const served = await permissionsOf(`${adapter.name}:task:${followed.gid}`);
    expect(await permissionsOf(attachment)).toEqual(served);
    await admin(`/_admin/tasks/${followed.gid}/followers`, 'POST', { remove: [unfollowed] });
    const follower = [...store.indexes.tasks.values()]
      .find((t) => t.workspace === org && t.followers.length > 1 && t.gid !== followed.gid)
      ?.followers.find((u) => store.people.workspaceMembership(u, org)?.isActive && !store.people.workspaceMembership(u, org)?.isGuest) as string;
    await admin(`/_admin/users/${follower}/deactivate`, 'POST', {});
    expect((await mismatches()).length).toBeGreaterThan(0);

    const held = new SyncLock(gw.database.db, adapter.name);
    await held.acquire();
    expect(sent.filter((r) => READS_CONTENT.test(r)).length).toBeGreaterThan(0); // the full run's
    sent = [];
    try {
      expect(await runAccessSync(adapter, deps())).toMatchObject({ mode: 'access', status: 'succeeded' });
    } finally {
      await held.release();
    }
    expect(sent.filter((r) => READS_CONTENT.test(r))).toEqual([]);
    expect(sent.length).toBeGreaterThan(0);
    expect(await mismatches()).toEqual([]);
    // The follower's entry is gone from /v1 (users are served under ids of their own).
    const now = await permissionsOf(`${adapter.name}:task:${followed.gid}`);
    expect(served.filter((p) => !now.includes(p))).toEqual([expect.stringMatching(/^USER /)]);
    expect(await permissionsOf(attachment)).toEqual(now);
    const user = (await gw.database
      .db('users')
      .where({ id: `${adapter.name}:${follower}` })
      .first()) as { state: string };
    expect(user.state).toBe('Inactive');
  }, 60_000);

  it('fails the run and keeps what is served when the directory cannot be read', async () => {
    expect(await runSync(adapter, deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    const store = m.mock.model;
    const org = m.mock.organization.organization;
    const followed = [...store.indexes.tasks.values()].find(
      (t) => t.workspace === org && t.followers.length > 1 && t.memberships.length > 0 && t.parent === null,
    ) as Task;
    const unfollowed = followed.followers[followed.followers.length - 1] as string;
    const served = await permissionsOf(`${adapter.name}:task:${followed.gid}`);
    await admin(`/_admin/tasks/${followed.gid}/followers`, 'POST', { remove: [unfollowed] });
    failDirectory = true;
    expect(await runAccessSync(adapter, deps())).toMatchObject({ status: 'failed' });
    expect(await permissionsOf(`${adapter.name}:task:${followed.gid}`)).toEqual(served);
  }, 60_000);
});
