import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { createWorkManagementAdapter, type WorkManagementAdapter } from '../../../src/adapters/work-management';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import type { WorkManagementStore } from '@content-gateway/kit/src/mocks/work-management/model';
import { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess } from './staged-access';

/**
 * Property: whatever people change between two runs and whichever of those changes' events the
 * service loses (on the workspace stream or on per-project streams), right after the incremental
 * run no user is granted a file the mock's oracle does not let them see, no deleted task or
 * attachment is still served, and no user is denied one the oracle grants. Each case is a fresh
 * generated organization, synced in full, then one to three rounds of random changes at a random
 * loss rate, each followed by an incremental run and the comparison. A case without access
 * reconciliation (`reconcile: false`) loses no events: then the events and the re-reads alone must
 * be exact. Changes include an attachment-deleted event for an attachment its task still lists
 * (deleted and restored with the restore's event lost) and deleting an attachment's task; their
 * small index draws make a later round often delete the task of such an attachment. Tasks move to
 * another parent (`setParent`: under any task, under a task of a tree in no project, to no parent;
 * trees in no project, roots included, among those moved), and later ops of the same or a later
 * round remove a follower from, or delete, a task moved or one of its subtasks.
 */
const logger = pino({ level: 'silent' });
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;

type Op =
  | { kind: 'move'; task: number; project: number }
  | { kind: 'leave-project'; task: number }
  | { kind: 'add-project'; task: number; project: number }
  | { kind: 'delete-task'; task: number }
  | { kind: 'delete-attachment'; attachment: number }
  | { kind: 'restored-attachment'; attachment: number }
  | { kind: 'delete-attachment-task'; attachment: number }
  | { kind: 'follow'; task: number; user: number; add: boolean }
  | { kind: 'assign'; task: number; user: number }
  | { kind: 'project-member'; project: number; user: number; add: boolean }
  | { kind: 'privacy'; project: number; setting: number }
  | { kind: 'team-member'; team: number; user: number; add: boolean }
  | { kind: 'deactivate'; user: number }
  | { kind: 'leave-all'; task: number }
  | { kind: 'tree-unfollow'; task: number; user: number }
  | { kind: 'tree-delete'; task: number }
  | { kind: 'add-subtask'; task: number; user: number; assign: boolean }
  | { kind: 'reparent'; task: number; to: number }
  | { kind: 'tree-reparent'; task: number; to: number }
  | { kind: 'unparent'; task: number; tree: boolean }
  | { kind: 'moved-unfollow'; task: number; user: number }
  | { kind: 'moved-delete'; task: number };

const index = fc.nat(10_000);
/** Small, so that two rounds often pick the same task attachment. */
const few = fc.nat(3);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), task: index, project: index }),
  fc.record({ kind: fc.constant('leave-project' as const), task: index }),
  fc.record({ kind: fc.constant('add-project' as const), task: index, project: index }),
  fc.record({ kind: fc.constant('delete-task' as const), task: index }),
  fc.record({ kind: fc.constant('delete-attachment' as const), attachment: index }),
  fc.record({ kind: fc.constant('restored-attachment' as const), attachment: few }),
  fc.record({ kind: fc.constant('delete-attachment-task' as const), attachment: few }),
  fc.record({ kind: fc.constant('follow' as const), task: index, user: index, add: fc.boolean() }),
  fc.record({ kind: fc.constant('assign' as const), task: index, user: index }),
  fc.record({ kind: fc.constant('project-member' as const), project: index, user: index, add: fc.boolean() }),
  fc.record({ kind: fc.constant('privacy' as const), project: index, setting: fc.nat(2) }),
  fc.record({ kind: fc.constant('team-member' as const), team: index, user: index, add: fc.boolean() }),
  fc.record({ kind: fc.constant('deactivate' as const), user: index }),
  fc.record({ kind: fc.constant('leave-all' as const), task: few }),
  fc.record({ kind: fc.constant('tree-unfollow' as const), task: few, user: index }),
  fc.record({ kind: fc.constant('tree-delete' as const), task: few }),
  fc.record({ kind: fc.constant('add-subtask' as const), task: index, user: index, assign: fc.boolean() }),
  fc.record({ kind: fc.constant('reparent' as const), task: index, to: index }),
  fc.record({ kind: fc.constant('tree-reparent' as const), task: few, to: index }),
  fc.record({ kind: fc.constant('unparent' as const), task: index, tree: fc.boolean() }),
  fc.record({ kind: fc.constant('moved-unfollow' as const), task: few, user: index }),
  fc.record({ kind: fc.constant('moved-delete' as const), task: few }),
);
const round = fc.record({
  lossRate: fc.integer({ min: 0, max: 95 }).map((percent) => percent / 100),
  lossSeed: fc.string({ maxLength: 6 }),
  ops: fc.array(op, { minLength: 1, maxLength: 8 }),
});

/** Picks the `i`-th of a non-empty list (modulo its length). */
function pick<T>(list: readonly T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

/** Tasks each mock saw moved by `setParent` (the `moved-*` ops change them, or their subtasks, afterwards). */
const movedIn = new WeakMap<RunningMock, string[]>();

/** Applies one abstract change through the mock's HTTP APIs, choosing among what exists now. */
async function apply(m: RunningMock, o: Op): Promise<void> {
  const s: WorkManagementStore = m.mock.model;
  const org = m.mock.organization.organization;
  const tasks = [...s.indexes.tasks.values()].filter((t) => t.workspace === org);
  const projects = [...s.indexes.projects.values()].filter((p) => p.workspace === org);
  const members = [...s.indexes.workspaceMemberships.values()].filter((w) => w.workspace === org && w.isActive).map((w) => w.user);
  const call = async (p: string, method: string, body?: unknown) => {
    const res = await m.call(p, { method, ...(body === undefined ? {} : { body }) });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
  };
  const m2api = async (p: string, data: unknown) => {
    const res = await m.api(p, { body: { data } });
    if (res.status >= 300) throw new Error(`POST ${p}: ${res.status}`);
  };
  const task = 'task' in o ? pick(tasks, o.task) : undefined;
  const project = 'project' in o ? pick(projects, o.project) : undefined;
  const user = 'user' in o ? pick(members, o.user) : undefined;
  const synced = [...s.indexes.attachments.values()].filter(
    (a) => a.host === 'asana' && SUPPORTED.test(a.name) && s.indexes.tasks.get(a.parent)?.workspace === org,
  );
  // Tasks heading subtasks from a project (they may leave it), and subtasks in no project whose ancestors are in none (a project-less tree's).
  const heads = tasks.filter((t) => t.memberships.length > 0 && (s.indexes.subtasksByTask.get(t.gid)?.length ?? 0) > 0);
  const projectLess = (t: (typeof tasks)[number]) => s.indexes.ancestry(t).every((a) => a.memberships.length === 0);
  const inTrees = tasks.filter((t) => t.parent !== null && projectLess(t));
  // Re-parenting: trees in no project (their roots too) to move, targets in no project tree on even draws, any task on odd ones.
  const treeMembers = tasks.filter((t) => projectLess(t) && (t.parent !== null || (s.indexes.subtasksByTask.get(t.gid)?.length ?? 0) > 0));
  const target = (to: number) => pick(to % 2 === 0 ? tasks.filter(projectLess) : tasks, to >> 1);
  const moved = movedIn.get(m) ?? [];
  const movedTrees = tasks.filter((t) => s.indexes.ancestry(t).some((a) => moved.includes(a.gid)));
  const setParent = async (what: (typeof tasks)[number] | undefined, to: (typeof tasks)[number] | null | undefined) => {
    if (!what || to === undefined || (to && s.indexes.ancestry(to).some((a) => a.gid === what.gid))) return; // a cycle: the service refuses it
    await m2api(`/tasks/${what.gid}/setParent`, { parent: to?.gid ?? null });
    movedIn.set(m, [...moved, what.gid]);
  };
  const onTask = o.kind === 'restored-attachment' || o.kind === 'delete-attachment-task' ? pick(synced, o.attachment) : undefined;
  const host = onTask ? s.indexes.tasks.get(onTask.parent) : undefined;
  switch (o.kind) {
    case 'move':
      if (task && project) await call(`/_admin/tasks/${task.gid}/move`, 'POST', { to: project.gid });
      return;
    case 'leave-project': {
      const from = task?.memberships[0]?.project;
      if (task && from) await m.api(`/tasks/${task.gid}/removeProject`, { body: { data: { project: from } } });
      return;
    }
    case 'add-project':
      if (task && project) await m.api(`/tasks/${task.gid}/addProject`, { body: { data: { project: project.gid } } });
      return;
    case 'delete-task':
      if (task) await call(`/_admin/tasks/${task.gid}`, 'DELETE');
      return;
    case 'delete-attachment': {
      const attachment = pick(
        [...s.indexes.attachments.values()].filter((a) => a.host === 'asana'),
        o.attachment,
      );
      if (attachment) await call(`/_admin/attachments/${attachment.gid}`, 'DELETE');
      return;
    }
    case 'restored-attachment':
      // The mock has no attachment trash: the deletion event is recorded alone, the attachment stays listed.
      if (onTask && host)
        s.recorder.record('deleted', s.recorder.ref('attachment', onTask.gid, onTask.name), s.recorder.taskRef(host), s.recorder.taskScopes(host));
      return;
    case 'delete-attachment-task':
      if (host) await call(`/_admin/tasks/${host.gid}`, 'DELETE');
      return;
    case 'follow':
      if (task && user) await call(`/_admin/tasks/${task.gid}/followers`, 'POST', o.add ? { add: [user] } : { remove: [pick(task.followers, o.user)] });
      return;
    case 'assign':
      if (task && user) await call(`/_admin/tasks/${task.gid}`, 'PUT', { assignee: o.user % 5 === 0 ? null : user });
      return;
    case 'project-member':
      if (project && user)
        await call(
          o.add
            ? `/_admin/projects/${project.gid}/members`
            : `/_admin/projects/${project.gid}/members/${pick(s.projects.memberships(project.gid), o.user)?.member ?? user}`,
          o.add ? 'POST' : 'DELETE',
          o.add ? { member: user } : undefined,
        );
      return;
    case 'privacy':
      if (project) await call(`/_admin/projects/${project.gid}`, 'PUT', { privacy_setting: ['public_to_workspace', 'private_to_team', 'private'][o.setting] });
      return;
    case 'team-member': {
      const team = pick(
        [...s.indexes.teams.values()].filter((t) => t.workspace === org),
        o.team,
      );
      const membership = team ? pick(s.indexes.list(s.indexes.teamMembershipsByTeam.get(team.gid), s.indexes.teamMemberships), o.user) : undefined;
      if (team && user && o.add) await call('/_admin/team_memberships', 'POST', { team: team.gid, user });
      else if (membership && !o.add) await call(`/_admin/team_memberships/${membership.gid}`, 'DELETE');
      return;
    }
    case 'deactivate':
      if (user && members.length > 20) await call(`/_admin/users/${user}/deactivate`, 'POST', {});
      return;
    case 'leave-all': {
      const head = pick(heads, o.task);
      for (const m of head?.memberships.slice() ?? []) await m2api(`/tasks/${head?.gid}/removeProject`, { project: m.project });
      return;
    }
    case 'tree-unfollow': {
      const sub = pick(inTrees, o.task);
      const follower = sub ? pick(sub.followers, o.user) : undefined;
      if (sub && follower) await call(`/_admin/tasks/${sub.gid}/followers`, 'POST', { remove: [follower] });
      return;
    }
    case 'tree-delete': {
      const sub = pick(inTrees, o.task);
      if (sub) await call(`/_admin/tasks/${sub.gid}`, 'DELETE');
      return;
    }
    case 'reparent':
      return setParent(task, target(o.to));
    case 'tree-reparent':
      return setParent(pick(treeMembers, o.task), target(o.to));
    case 'unparent':
      return setParent(pick(o.tree ? inTrees : tasks.filter((t) => t.parent !== null && !projectLess(t)), o.task), null);
    case 'moved-unfollow': {
      const sub = pick(movedTrees, o.task);
      const follower = sub ? pick(sub.followers, o.user) : undefined;
      if (sub && follower) await call(`/_admin/tasks/${sub.gid}/followers`, 'POST', { remove: [follower] });
      return;
    }
    case 'moved-delete': {
      const sub = pick(movedTrees, o.task);
      if (sub) await call(`/_admin/tasks/${sub.gid}`, 'DELETE');
      return;
    }
    case 'add-subtask': {
      // Its `added` event is kept: a new task no listing shows is not seen until a full run when that event is lost (README, known limitations).
      const rate = s.indexes.events.lossRate;
      s.indexes.events.lossRate = 0;
      try {
        if (task && user)
          await call('/_admin/tasks', 'POST', { name: 'New subtask', parent: task.gid, followers: [user], ...(o.assign ? { assignee: user } : {}) });
      } finally {
        s.indexes.events.lossRate = rate;
      }
      return;
    }
  }
}

/** (user, file) pairs staging grants and the oracle does not, the other way round, and files served that the source no longer has. */
async function exposure(m: RunningMock, t: TestDatabase, source: string): Promise<{ over: string[]; under: string[]; stale: string[] }> {
  const s = m.mock.model;
  const org = m.mock.organization.organization;
  const expected = new Map<string, Set<string>>();
  for (const task of s.indexes.tasks.values()) if (task.workspace === org) expected.set(`task:${task.gid}`, new Set(m.mock.oracle.visibleTo('task', task.gid)));
  for (const a of s.indexes.attachments.values()) {
    const workspace = a.parentType === 'task' ? s.indexes.tasks.get(a.parent)?.workspace : s.indexes.projects.get(a.parent)?.workspace;
    if (workspace === org && a.host === 'asana' && SUPPORTED.test(a.name))
      expected.set(`attachment:${a.gid}`, new Set(m.mock.oracle.visibleTo('attachment', a.gid)));
  }
  const staged = await stagedAccess(t.db, source);
  const over: string[] = [];
  const under: string[] = [];
  for (const [file, users] of staged) for (const u of users) if (!expected.get(file)?.has(u)) over.push(`${u} sees ${file}`);
  for (const [file, users] of expected) {
    if (!staged.has(file) && unreachable(m, file)) continue;
    for (const u of users) if (!staged.get(file)?.has(u)) under.push(`${u} cannot see ${file}`);
  }
  return { over, under, stale: [...staged.keys()].filter((file) => !expected.has(file)) };
}

/**
 * A file of a task no listing reaches and staging never had (README, known limits: a task in no
 * project, with no assignee and not a subtask): a subtask added and moved to no parent in one
 * round, under a task that left its last project in it, so the `added` event reached no stream.
 * Not synced: a delay failing closed (nobody is granted anything), so only its under-exposure is excused.
 */
function unreachable(m: RunningMock, file: string): boolean {
  const s = m.mock.model;
  const [kind, gid] = file.split(':') as [string, string];
  const taskGid = kind === 'task' ? gid : s.indexes.attachments.get(gid)?.parent;
  const task = taskGid === undefined ? undefined : s.indexes.tasks.get(taskGid);
  return task !== undefined && task.parent === null && task.memberships.length === 0 && task.assignee === null;
}

type Round = { lossRate: number; lossSeed: string; ops: Op[] };

/** Syncs a fresh organization in full, then each round's changes, an incremental run and the comparison with the oracle. */
async function checkRounds(seed: number, eventStreams: 'workspace' | 'projects', reconcile: boolean, rounds: readonly Round[]): Promise<void> {
  const m = await startMock({
    seed: `lossy-${seed}`,
    size: { tasks: 80, personalWorkspace: false },
    hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 },
  });
  const t = await createTestDatabase('sqlite');
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-lossy-'));
  try {
    const adapter: WorkManagementAdapter = createWorkManagementAdapter({
      baseUrl: m.base,
      token: m.mock.token,
      workspace: m.mock.organization.organization,
      eventStreams,
    });
    const sync = (mode: 'full' | 'auto') => runSync(adapter, { db: t.db, blobs: new FsBlobStore(blobDir), logger }, { mode, reconcile });
    expect((await sync('full')).status).toBe('succeeded');
    for (const r of rounds) {
      m.mock.setHostility({ eventLossRate: reconcile ? r.lossRate : 0, seed: `loss-${r.lossSeed}` });
      for (const o of r.ops) await apply(m, o);
      m.mock.setHostility({ eventLossRate: 0 });
      const summary = await sync('auto');
      expect({ status: summary.status, failures: summary.failures }).toEqual({ status: 'succeeded', failures: [] });
      const { over, under, stale } = await exposure(m, t, adapter.name);
      expect({ mode: summary.mode, reconcile, over: over.slice(0, 5), under: under.slice(0, 5), stale }).toEqual({
        mode: summary.mode,
        reconcile,
        over: [],
        under: [],
        stale: [],
      });
    }
  } finally {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
}

/** An attachment-deleted event for an attachment its task still lists, then (next round) that task deleted, among random changes. */
const restoredThenTaskDeleted: fc.Arbitrary<Round[]> = fc.record({ attachment: few, first: round, second: round }).map(({ attachment, first, second }) => [
  { ...first, ops: [...first.ops, { kind: 'restored-attachment', attachment }] },
  { ...second, ops: [{ kind: 'delete-attachment-task', attachment }, ...second.ops] },
]);

/** Moves between trees, then changes inside them: the ops on trees of tasks in no project and on moved tasks, and follows. */
const treeOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('reparent' as const), task: index, to: index }),
  fc.record({ kind: fc.constant('tree-reparent' as const), task: few, to: index }),
  fc.record({ kind: fc.constant('unparent' as const), task: index, tree: fc.boolean() }),
  fc.record({ kind: fc.constant('moved-unfollow' as const), task: few, user: index }),
  fc.record({ kind: fc.constant('moved-delete' as const), task: few }),
  fc.record({ kind: fc.constant('tree-unfollow' as const), task: few, user: index }),
  fc.record({ kind: fc.constant('tree-delete' as const), task: few }),
  fc.record({ kind: fc.constant('leave-all' as const), task: few }),
  fc.record({ kind: fc.constant('add-subtask' as const), task: index, user: index, assign: fc.boolean() }),
  fc.record({ kind: fc.constant('follow' as const), task: index, user: index, add: fc.boolean() }),
);
const treeRounds = fc.array(fc.record({ lossRate: fc.constant(0), lossSeed: fc.constant(''), ops: fc.array(treeOp, { minLength: 1, maxLength: 10 }) }), {
  minLength: 1,
  maxLength: 3,
});

const streams = fc.constantFrom('workspace' as const, 'projects' as const);
// Each case builds an organization and syncs it in full: no shrinking (it would replay dozens of
// cases); the first counterexample is reported as found. LOSSY_RUNS=<n> runs n cases of each
// property instead (a soak run, by hand); LOSSY_SEED=<n> replays fast-check's draws from a seed,
// and LOSSY_PATH=<path> with it the one case a failure names.
const soak = Number(process.env.LOSSY_RUNS) || undefined;
const seed = Number(process.env.LOSSY_SEED) || undefined;
const replayPath = process.env.LOSSY_PATH;
const settings = {
  numRuns: soak ?? 12,
  endOnFailure: true,
  ...(seed === undefined ? {} : { seed }),
  ...(replayPath === undefined ? {} : { path: replayPath }),
};
/** A case takes about a second; a soak run gets time for its cases. */
const timeout = Math.max(300_000, (soak ?? 0) * 5_000);

describe('work-management sync under lost events (property)', () => {
  it(
    'right after each incremental run, no (user, file) pair is over- or under-exposed against the oracle',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), streams, fc.boolean(), fc.array(round, { minLength: 1, maxLength: 3 }), checkRounds),
        settings,
      );
    },
    timeout,
  );

  it(
    'an attachment an event called deleted but its task still lists goes with the task deleted later',
    async () => {
      await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), streams, fc.boolean(), restoredThenTaskDeleted, checkRounds), {
        ...settings,
        numRuns: soak ?? 6,
      });
    },
    timeout,
  );

  it(
    'after tasks move between trees and their subtrees change, the events and re-reads alone are exact (per-project streams)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), treeRounds, (seed, rounds) => checkRounds(seed, 'projects', false, rounds)),
        { ...settings, numRuns: soak ?? 6 },
      );
    },
    timeout,
  );

  // Found by the tree-moves property (seed 303, path 143). Round 1: a task leaves its last project,
  // then one of its subtasks is moved to no parent: that move's `removed` event goes to the old
  // parent's streams, and it has none yet. The run reads the subtask again with the old parent's
  // tree (the checkpoint names it): a root now, it needs a stream too. Round 2 deletes it.
  it('a subtask moved to no parent right after its parent left its last project gets a stream of its own (per-project streams)', async () => {
    const rounds: Round[] = [
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'follow', task: 7865, user: 6309, add: true },
          { kind: 'leave-all', task: 0 },
          { kind: 'leave-all', task: 3 },
          { kind: 'unparent', task: 2953, tree: true },
        ],
      },
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'leave-all', task: 2 },
          { kind: 'add-subtask', task: 4195, user: 3122, assign: true },
          { kind: 'leave-all', task: 1 },
          { kind: 'tree-reparent', task: 3, to: 455 },
          { kind: 'moved-delete', task: 2 },
          { kind: 'tree-delete', task: 0 },
          { kind: 'leave-all', task: 0 },
        ],
      },
    ];
    await checkRounds(144826, 'projects', false, rounds);
  }, 60_000);

  // Found by the tree-moves property (seed 404, path 15). Round 1: a task in a project heading a
  // subtask leaves its last project; followers are removed from that subtask (their events reach
  // no stream: the task has none yet); then the task is moved under a task in no project that has
  // a stream already. No new root: the subtask must be read again all the same.
  it('a task that left its last project and was then moved under a tree with a stream has its subtree read again (per-project streams)', async () => {
    const rounds: Round[] = [
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'follow', task: 2184, user: 8173, add: true },
          { kind: 'add-subtask', task: 1406, user: 7572, assign: true },
          { kind: 'leave-all', task: 3 },
          { kind: 'follow', task: 4009, user: 1777, add: false },
          { kind: 'tree-unfollow', task: 0, user: 696 },
          { kind: 'tree-unfollow', task: 1, user: 1962 },
          { kind: 'follow', task: 6979, user: 8251, add: false },
          { kind: 'tree-reparent', task: 2, to: 9520 },
          { kind: 'tree-unfollow', task: 2, user: 6553 },
        ],
      },
    ];
    await checkRounds(451103, 'projects', false, rounds);
  }, 60_000);

  // Found by the first property (seed -1403984967, path 509). Task 300 heads a tree of subtasks in
  // no project, two levels deep. In one round it leaves its only project and is deleted: its
  // subtasks' deletion reaches no project stream, and the run learns of the task only from the
  // project stream's `removed` event (then a 404); the checkpoint's subtasks name the rest.
  it('a task that leaves its last project and is deleted in the same round takes its subtasks along (per-project streams)', async () => {
    const rounds: Round[] = [
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'deactivate', user: 4739 },
          { kind: 'assign', task: 6495, user: 1663 },
          { kind: 'leave-project', task: 880 },
          { kind: 'add-project', task: 4510, project: 6869 },
          { kind: 'delete-attachment-task', attachment: 0 },
          { kind: 'leave-project', task: 1794 },
        ],
      },
    ];
    await checkRounds(285558, 'projects', false, rounds);
  }, 60_000);

  // Found by the second property (seed 69272201, path 5). Round 1: a task leaves its only project
  // (its stream is now its own) while it has subtasks two and three levels down. Round 2: it is
  // deleted, and its subtasks with it; its stream is gone, so the run must know the whole subtree.
  it('deleting a task that left every project takes its subtasks at every depth along (per-project streams)', async () => {
    const rounds: Round[] = [
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'delete-task', task: 9454 },
          { kind: 'delete-attachment-task', attachment: 1 },
          { kind: 'leave-project', task: 3344 },
          { kind: 'restored-attachment', attachment: 0 },
        ],
      },
      {
        lossRate: 0,
        lossSeed: '',
        ops: [
          { kind: 'delete-attachment-task', attachment: 0 },
          { kind: 'delete-attachment', attachment: 2646 },
          { kind: 'project-member', project: 2391, user: 6920, add: true },
          { kind: 'delete-task', task: 3849 },
          { kind: 'leave-project', task: 9556 },
          { kind: 'delete-task', task: 8893 },
          { kind: 'project-member', project: 7735, user: 3394, add: false },
          { kind: 'delete-task', task: 4004 },
        ],
      },
    ];
    await checkRounds(872499, 'projects', false, rounds);
  }, 60_000);

  // Found by the first property with the tree ops (seed -2047769287, path 105). A round in which
  // tasks leave their last project and a subtask is added under one of them (per-project streams,
  // no loss): the `added` event reaches only the new root's stream, which starts with the next run.
  // The new root's tree is read again once its stream has a token.
  it('a subtask added under a task in the round it left its last project is synced (per-project streams)', async () => {
    const rounds: Round[] = [
      {
        lossRate: 0.09,
        lossSeed: 'jc%~<',
        ops: [
          { kind: 'leave-project', task: 1931 },
          { kind: 'delete-attachment-task', attachment: 2 },
          { kind: 'leave-project', task: 7318 },
          { kind: 'delete-attachment-task', attachment: 3 },
          { kind: 'leave-project', task: 6420 },
          { kind: 'add-subtask', task: 15, user: 1210, assign: false },
          { kind: 'team-member', team: 6387, user: 3234, add: false },
        ],
      },
      {
        lossRate: 0.35,
        lossSeed: ' j4]',
        ops: [
          { kind: 'leave-project', task: 7964 },
          { kind: 'restored-attachment', attachment: 0 },
          { kind: 'delete-attachment-task', attachment: 2 },
          { kind: 'restored-attachment', attachment: 3 },
          { kind: 'restored-attachment', attachment: 1 },
          { kind: 'team-member', team: 7407, user: 8865, add: true },
          { kind: 'assign', task: 7638, user: 8318 },
        ],
      },
      {
        lossRate: 0.18,
        lossSeed: "_5h'",
        ops: [
          { kind: 'project-member', project: 621, user: 242, add: false },
          { kind: 'tree-unfollow', task: 3, user: 7295 },
          { kind: 'assign', task: 5339, user: 1182 },
          { kind: 'follow', task: 1349, user: 9323, add: true },
          { kind: 'tree-delete', task: 3 },
          { kind: 'delete-attachment', attachment: 6096 },
          { kind: 'delete-attachment-task', attachment: 3 },
          { kind: 'deactivate', user: 7353 },
        ],
      },
    ];
    await checkRounds(184408, 'projects', false, rounds);
  }, 60_000);
});
