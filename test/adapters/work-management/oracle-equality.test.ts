import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createWorkManagementAdapter, type WorkManagementAdapter } from '../../../src/adapters/work-management';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import type { Task, WorkManagementStore } from '@content-gateway/kit/src/mocks/work-management/model';
import { runSync, type SyncSummary } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';
import { expectOracleEquality } from './oracle-comparison';
import { stagedFiles } from './staged-access';

/**
 * End to end against the mock's visibility oracle: a generated organization of a few hundred
 * tasks (guests, inactive users, limited-access team members, every privacy setting, team-shared
 * projects, portfolios that pass on access, multi-homed tasks, tasks in no project, nested
 * subtasks) is synced through the real engine into real staging; then, for every (user, file)
 * pair, the access the gateway would grant from the staged rows must equal the oracle's. Then the
 * organization changes and an incremental run must keep it so.
 */
const logger = pino({ level: 'silent' });

/** Top-level tasks of the organization that are in exactly one project of the given privacy. */
function tasksIn(store: WorkManagementStore, org: string, privacy: string): Task[] {
  return [...store.indexes.tasks.values()].filter(
    (t) =>
      t.workspace === org &&
      t.parent === null &&
      t.memberships.length === 1 &&
      store.indexes.projects.get(t.memberships[0]?.project ?? '')?.privacySetting === privacy,
  );
}

describe.each(databaseKinds)('work-management sync equals the visibility oracle (%s)', (kind) => {
  describe.each(['workspace', 'projects'] as const)('with %s event streams', (eventStreams) => {
    let m: RunningMock;
    let t: TestDatabase;
    let blobDir: string;
    let adapter: WorkManagementAdapter;
    let clock = Date.parse('2026-06-01T00:00:00Z');
    const sync = async (mode: 'full' | 'auto'): Promise<SyncSummary> => {
      clock += 3600_000;
      // Runs follow each other at once here, not an hour apart: start each with a fresh minute
      // of quota (the limiter itself stays on; honouring it is tested in the client tests).
      await m.call('/_admin/rate-limits/reset', { method: 'POST', body: {} });
      const summary = await runSync(adapter, { db: t.db, blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) }, { mode });
      expect({ status: summary.status, error: summary.error, failures: summary.failures }).toEqual({ status: 'succeeded', error: undefined, failures: [] });
      return summary;
    };

    beforeAll(async () => {
      m = await startMock({ seed: `oracle-${eventStreams}`, size: { tasks: 320, portfolioAccessInheritanceRatio: 0.5, limitedAccessRatio: 0.1 } });
      t = await createTestDatabase(kind);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-oracle-'));
      adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token, eventStreams });
    });
    afterAll(async () => {
      await m?.close();
      await t?.destroy();
      fs.rmSync(blobDir, { recursive: true, force: true });
    });

    it('a full sync grants every user exactly what the oracle grants, file by file', async () => {
      const summary = await sync('full');
      expect(summary.mode).toBe('full');
      await expectOracleEquality(m, t, adapter.name);
      // The organization exercises what the rules are about.
      const store = m.mock.model;
      expect([...store.indexes.projectPortfolioSettings.values()].some((s) => s.isAccessControlInherited)).toBe(true);
      expect([...store.indexes.teamMemberships.values()].some((tm) => tm.isLimitedAccess)).toBe(true);
      expect([...store.indexes.tasks.values()].some((task) => task.memberships.length === 0 && task.parent === null)).toBe(true);
    });

    it('after moves, membership changes, deletions, a comment edit and a deactivation, an incremental sync still does', async () => {
      const store = m.mock.model;
      const org = m.mock.organization.organization;
      const admin = async (p: string, method: string, body?: unknown): Promise<void> => {
        const res = await m.call(p, { method, ...(body === undefined ? {} : { body }) });
        if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
      };

      // Move a task from a private project to a public one.
      const publicProject = [...store.indexes.projects.values()].find((p) => p.workspace === org && p.privacySetting === 'public_to_workspace') as {
        gid: string;
      };
      const moved = tasksIn(store, org, 'private').find((task) => (store.indexes.storiesByTask.get(task.gid)?.length ?? 0) > 0) as Task;
      await admin(`/_admin/tasks/${moved.gid}/move`, 'POST', { to: publicProject.gid });
      // A public task becomes private to a team-shared project (and is not touched again: only
      // the events tell, since a move leaves modified_at alone).
      const shared = [...store.indexes.projects.values()].find(
        (p) => p.workspace === org && p.privacySetting === 'private' && store.projects.memberships(p.gid).some((x) => x.memberType === 'team'),
      ) as { gid: string };
      const hidden = tasksIn(store, org, 'public_to_workspace').find((task) => task.gid !== moved.gid) as Task;
      await admin(`/_admin/tasks/${hidden.gid}/move`, 'POST', { to: shared.gid });
      // Remove a user member from a private project, and a team from a team-shared one.
      const privateProject = [...store.indexes.projects.values()].find(
        (p) => p.workspace === org && p.privacySetting === 'private' && store.projects.userMembers(p.gid).length > 1,
      ) as { gid: string };
      const removedMember = store.projects.userMembers(privateProject.gid).find((u) => u !== store.indexes.projects.get(privateProject.gid)?.owner) as string;
      await admin(`/_admin/projects/${privateProject.gid}/members/${removedMember}`, 'DELETE');
      const removedTeam = store.projects.memberships(shared.gid).find((x) => x.memberType === 'team')?.member as string;
      await admin(`/_admin/projects/${shared.gid}/members/${removedTeam}`, 'DELETE');
      // A private_to_team project becomes public.
      const teamOnly = [...store.indexes.projects.values()].find((p) => p.workspace === org && p.privacySetting === 'private_to_team') as { gid: string };
      await admin(`/_admin/projects/${teamOnly.gid}`, 'PUT', { privacy_setting: 'public_to_workspace' });
      // Delete a task with an attachment and a task with subtasks (their subtasks go too).
      const withAttachment = [...store.indexes.tasks.values()].find(
        (task) =>
          task.workspace === org &&
          task.gid !== moved.gid &&
          task.gid !== hidden.gid &&
          store.indexes.list(store.indexes.attachmentsByParent.get(task.gid), store.indexes.attachments).some((a) => a.host === 'asana'),
      ) as Task;
      const withSubtasks = [...store.indexes.tasks.values()].find(
        (task) =>
          task.workspace === org &&
          task.parent === null &&
          task.gid !== withAttachment.gid &&
          task.gid !== moved.gid &&
          task.gid !== hidden.gid &&
          (store.indexes.subtasksByTask.get(task.gid)?.length ?? 0) > 0,
      ) as Task;
      const goneTasks = [withAttachment, withSubtasks, ...store.indexes.list(store.indexes.subtasksByTask.get(withSubtasks.gid), store.indexes.tasks)].map(
        (x) => x.gid,
      );
      const goneAttachments = (store.indexes.attachmentsByParent.get(withAttachment.gid) ?? []).filter(
        (a) => store.indexes.attachments.get(a)?.host === 'asana',
      );
      await admin('/_admin/tasks/delete', 'POST', { gids: [withAttachment.gid, withSubtasks.gid] });
      // Edit a comment.
      const story = [...store.indexes.stories.values()].find(
        (s) => s.type === 'comment' && store.indexes.tasks.get(s.target)?.workspace === org && s.target !== moved.gid,
      ) as { gid: string; target: string };
      await admin(`/_admin/stories/${story.gid}`, 'PUT', { text: 'EDITED: the plan changed' });
      // Deactivate a user who follows tasks and is on a team.
      const follower = [...store.indexes.tasks.values()]
        .find((task) => task.workspace === org && task.followers.length > 1 && !goneTasks.includes(task.gid))
        ?.followers.find(
          (u) =>
            store.people.workspaceMembership(u, org)?.isActive &&
            !store.people.workspaceMembership(u, org)?.isGuest &&
            (store.indexes.teamMembershipsByUser.get(u)?.length ?? 0) > 0,
        ) as string;
      await admin(`/_admin/users/${follower}/deactivate`, 'POST', {});
      // A new team member, a new comment, a new attachment, a new task in no project.
      const team = [...store.indexes.teams.values()].find((x) => x.workspace === org) as { gid: string };
      const newcomer = [...store.indexes.workspaceMemberships.values()].find(
        (wm) =>
          wm.workspace === org &&
          wm.isActive &&
          !wm.isGuest &&
          !(store.indexes.teamMembershipsByUser.get(wm.user) ?? []).some((g) => store.indexes.teamMemberships.get(g)?.team === team.gid),
      )?.user as string;
      await admin('/_admin/team_memberships', 'POST', { team: team.gid, user: newcomer });
      await admin(`/_admin/tasks/${moved.gid}/comments`, 'POST', { text: 'Moved to a public project.' });
      const assignee = [...store.indexes.workspaceMemberships.values()].find((wm) => wm.workspace === org && wm.isActive && wm.user !== follower)
        ?.user as string;
      await admin('/_admin/tasks', 'POST', { name: 'A private to-do', workspace: org, assignee, followers: [assignee] });
      // A new task in two projects, a new subtask (in no project) of a private task, a follower
      // removed and a task reassigned.
      await admin('/_admin/tasks', 'POST', { name: 'Multi-homed', projects: [privateProject.gid, teamOnly.gid].join(','), followers: [assignee] });
      const privateTask = tasksIn(store, org, 'private').find(
        (task) => !goneTasks.includes(task.gid) && task.gid !== moved.gid && task.gid !== hidden.gid && task.followers.length > 1,
      ) as Task;
      await admin('/_admin/tasks', 'POST', { name: 'A subtask', parent: privateTask.gid, followers: [newcomer] });
      await admin(`/_admin/tasks/${privateTask.gid}/followers`, 'POST', { remove: [privateTask.followers[privateTask.followers.length - 1]] });
      await admin(`/_admin/tasks/${privateTask.gid}/attachments`, 'POST', { name: 'handover.docx', kind: 'docx' });
      await admin(`/_admin/tasks/${moved.gid}`, 'PUT', { assignee: newcomer });
      // A guest joins a team; a member joins another one with limited access only.
      const guest = [...store.indexes.workspaceMemberships.values()].find((wm) => wm.workspace === org && wm.isActive && wm.isGuest)?.user as string;
      await admin('/_admin/team_memberships', 'POST', { team: team.gid, user: guest, is_guest: true });
      const otherTeam = [...store.indexes.teams.values()].find((x) => x.workspace === org && x.gid !== team.gid) as { gid: string };
      await admin('/_admin/team_memberships', 'POST', { team: otherTeam.gid, user: assignee, is_limited_access: true });

      // A new private project (through the public API) with a member and a task; a project renamed.
      const created = await m.api<{ data: { gid: string } }>('/projects', {
        body: { data: { name: 'Skunkworks', workspace: org, team: team.gid, privacy_setting: 'private' } },
      });
      expect(created.status).toBe(201);
      await admin(`/_admin/projects/${created.body.data.gid}/members`, 'POST', { member: newcomer });
      await admin('/_admin/tasks', 'POST', { name: 'Secret plan', projects: created.body.data.gid });
      const renamed = [...store.indexes.projects.values()].find(
        (p) => p.workspace === org && p.gid !== publicProject.gid && (store.indexes.tasksByProject.get(p.gid)?.length ?? 0) > 0,
      ) as { gid: string };
      await admin(`/_admin/projects/${renamed.gid}`, 'PUT', { name: 'Renamed Project Zeta' });

      const summary = await sync('auto');
      expect(summary.mode).toBe('incremental');
      await expectOracleEquality(m, t, adapter.name);

      const files = await stagedFiles(t.db, adapter.name);
      for (const gid of goneTasks) expect(files.deleted).toContain(`task:${gid}`);
      for (const gid of goneAttachments) expect(files.deleted).toContain(`attachment:${gid}`);
      const page = (await t
        .db('files')
        .where({ id: `${adapter.name}:task:${story.target}` })
        .first()) as { body_html: string };
      expect(page.body_html).toContain('EDITED: the plan changed');
      const inRenamed = (await t
        .db('files')
        .where({ id: `${adapter.name}:task:${store.indexes.tasksByProject.get(renamed.gid)?.[0]}` })
        .first()) as { body_html: string };
      expect(inRenamed.body_html).toContain('Renamed Project Zeta');
      const user = (await t
        .db('users')
        .where({ id: `${adapter.name}:${follower}` })
        .first()) as { state: string };
      expect(user.state).toBe('Inactive');
      // Far fewer requests than the full run.
      expect(adapter.lastRun?.mode).toBe('incremental');
      expect(adapter.lastRun?.apiRequests ?? Infinity).toBeLessThan(60);
    });

    it('a full sync after the incremental one agrees with the oracle too', async () => {
      await sync('full');
      await expectOracleEquality(m, t, adapter.name);
    });
  });
});
