import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess, stagedFiles } from './staged-access';
import { activeMembers, addTask, projectStreamsSync } from './tree-fixture';

/**
 * A task moved to another parent (`setParent`) takes its subtree along, and with it the streams
 * its later events reach: its new ancestors' and their projects', no longer its old ones'. Each
 * case moves a task heading a subtask followed by one user, then (in the same round, or in the
 * round after the run that saw the move) removes that follower or deletes that subtask: after the
 * next incremental run the subtask is no longer served to them. Per-project streams, no access
 * reconciliation (the events and the re-reads alone).
 */
type Trees = {
  project: string;
  follower: string;
  other: string;
  inProject: string;
  root: string;
  sub: string;
  leaf: string;
  otherRoot: string;
  loneRoot: string;
};

/** What is moved where: the moved task (its subtask `leaf` is followed by `follower`) and its new parent. */
const moves: Array<[string, (t: Trees) => { task: string; parent: string | null }]> = [
  ['a subtask of a tree in no project (its root has a stream) moved under a task in a project', (t) => ({ task: t.sub, parent: t.inProject })],
  ['the root of a tree in no project (it has a stream) made a subtask of a task in a project', (t) => ({ task: t.root, parent: t.inProject })],
  ['the root of a tree in no project (it has a stream) made a subtask of another such tree', (t) => ({ task: t.root, parent: t.otherRoot })],
  ['a subtask of a task in a project moved to no parent (a new tree in no project)', (t) => ({ task: t.sub, parent: null })],
  ['a subtask of a task in a project moved under a task in no project that nothing synced (no stream)', (t) => ({ task: t.sub, parent: t.loneRoot })],
  [
    'the root of a tree in no project (it has a stream) made a subtask of a task in no project that nothing synced',
    (t) => ({ task: t.root, parent: t.loneRoot }),
  ],
];
/** The moves that start from a subtask of the task in a project. */
const fromProject = new Set([3, 4]);

describe('work-management: a task moved to another parent, then its subtree changes (per-project streams)', () => {
  let m: RunningMock;
  let t: TestDatabase;
  let blobDir: string;

  beforeEach(async () => {
    m = await startMock({ seed: 'reparented-trees', size: 'tiny' });
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-reparent-'));
  });
  afterEach(async () => {
    await m.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  /**
   * A task in a project; a tree in no project (root ← assigned subtask ← followed leaf: the root
   * reached by no listing, so only its stream carries the tree), another such tree, and a task in
   * no project that no listing reaches and heads nothing (never synced, no stream). For the moves
   * `fromProject` names, the first tree's subtask hangs under the task in the project instead.
   */
  async function build(subUnderProject: boolean): Promise<Trees> {
    const org = m.mock.organization.organization;
    const project = [...m.mock.model.indexes.projects.values()].find((p) => p.workspace === org && !p.archived)?.gid;
    const [follower, other] = activeMembers(m);
    if (!follower || !other || !project) throw new Error('the generated organization lacks two active members or a project');
    const add = (data: Record<string, unknown>) => addTask(m, data);
    const inProject = await add({ name: 'Task in a project', projects: [project], followers: [other] });
    const root = await add({ name: 'Root in no project', followers: [other] });
    // Assigned (a task list reaches it) only where no project's listing does: unassigned, no listing of changed tasks shows it either.
    const sub = await add({
      name: 'Subtask in no project',
      parent: subUnderProject ? inProject : root,
      ...(subUnderProject ? {} : { assignee: other }),
      followers: [other],
    });
    const leaf = await add({ name: 'Followed sub-subtask', parent: sub, followers: [follower] });
    const otherRoot = await add({ name: 'Another root in no project', followers: [other] });
    await add({ name: 'Its assigned subtask', parent: otherRoot, assignee: other });
    const loneRoot = await add({ name: 'A task in no project, unassigned', followers: [other] });
    return { project, follower, other, inProject, root, sub, leaf, otherRoot, loneRoot };
  }

  async function fullRun(trees: Trees): Promise<() => ReturnType<typeof runSync>> {
    const { adapter, sync } = projectStreamsSync(m, t, blobDir);
    expect((await sync('full')).status).toBe('succeeded');
    expect((await stagedAccess(t.db, adapter.name)).get(`task:${trees.leaf}`)).toContain(trees.follower);
    return async () => {
      const run = await sync('auto');
      expect({ mode: run.mode, status: run.status, failures: run.failures }).toEqual({ mode: 'incremental', status: 'succeeded', failures: [] });
      return run;
    };
  }

  const changes: Array<[string, (tr: Trees) => Promise<void>, (tr: Trees) => Promise<void>]> = [
    [
      'a follower removed from its subtask no longer sees it',
      async (tr) => {
        expect((await m.call(`/_admin/tasks/${tr.leaf}/followers`, { method: 'POST', body: { remove: [tr.follower] } })).status).toBeLessThan(300);
      },
      async (tr) => expect((await stagedAccess(t.db, 'work-management')).get(`task:${tr.leaf}`) ?? new Set()).not.toContain(tr.follower),
    ],
    [
      'its subtask deleted is no longer served',
      async (tr) => expect((await m.call(`/_admin/tasks/${tr.leaf}`, { method: 'DELETE' })).status).toBeLessThan(300),
      async (tr) => expect((await stagedFiles(t.db, 'work-management')).active.has(`task:${tr.leaf}`)).toBe(false),
    ],
  ];

  // The move's `removed` event goes to the streams of the old parent, which has none yet (it left
  // its last project in the same round, so its stream starts with this run).
  it.each(changes)('a task leaves its last project, then its subtask is moved to no parent: %s', async (_change, change, check) => {
    const trees = await build(true);
    const next = await fullRun(trees);
    expect((await m.api(`/tasks/${trees.inProject}/removeProject`, { body: { data: { project: trees.project } } })).status).toBe(200);
    expect((await m.api(`/tasks/${trees.sub}/setParent`, { body: { data: { parent: null } } })).status).toBe(200);
    await next();
    await change(trees);
    await next();
    await check(trees);
  });

  // Between leaving its project and its move, the task's tree is on no stream: the change made
  // then reaches none, and the tree it joins has its stream already (no new root to read again).
  it.each(changes)(
    'a task leaves its last project, its tree changes, then it is moved under a tree in no project that has a stream: %s',
    async (_change, change, check) => {
      const trees = await build(true);
      const next = await fullRun(trees);
      expect((await m.api(`/tasks/${trees.inProject}/removeProject`, { body: { data: { project: trees.project } } })).status).toBe(200);
      await change(trees);
      expect((await m.api(`/tasks/${trees.inProject}/setParent`, { body: { data: { parent: trees.otherRoot } } })).status).toBe(200);
      await next();
      await check(trees);
    },
  );

  describe.each(moves)('%s', (_name, move) => {
    describe.each(changes)('then %s', (_change, change, check) => {
      it.each(['in the same round', 'in the round after'])('%s', async (when) => {
        const trees = await build(fromProject.has(moves.findIndex(([, m]) => m === move)));
        const next = await fullRun(trees);
        const { task, parent } = move(trees);
        expect((await m.api(`/tasks/${task}/setParent`, { body: { data: { parent } } })).status).toBe(200);
        if (when === 'in the round after') await next();
        await change(trees);
        await next();
        await check(trees);
      });
    });
  });
});
