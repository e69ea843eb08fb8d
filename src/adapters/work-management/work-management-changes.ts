import type { SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { FullRunRequired } from '../source-error';
import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import { crawlProject, modifiedSince, projectAttachments } from './work-management-crawl';
import { directoryEvents, directoryGroupIds, directoryUsers, type Directory } from './work-management-directory';
import type { ChangePlan } from './work-management-events';
import { compareGids, fileId } from './work-management-mapping';
import { descendantsIn } from './work-management-run-checkpoint';
import type { WmProject } from './work-management-records';
import { readTasks, type TaskContext, type TaskCrawler } from './work-management-tasks';

/**
 * Users who were inactive at the last run and are active again expire the checkpoint: while
 * inactive they were left out of the access lists of tasks re-read meanwhile, and which tasks
 * they follow cannot be asked for: only a full run restores them exactly.
 */
export function refuseReactivated(since: Pick<WorkManagementCheckpoint, 'inactive'>, dir: Pick<Directory, 'people'>): void {
  const reactivated = since.inactive.filter((u) => dir.people.active.has(u));
  if (reactivated.length > 0) {
    throw new FullRunRequired(`${reactivated.length} user(s) became active again (${reactivated.slice(0, 5).join(', ')}); a full sync restores their access`);
  }
}

/** The directory's users and groups, then deletes for those the last run yielded that are gone. */
export function* identityChanges(dir: Directory, since: Pick<WorkManagementCheckpoint, 'users' | 'groups'>, signal: AbortSignal): Generator<SyncEvent> {
  const stillUsers = new Set(directoryUsers(dir).map((u) => u.nativeId));
  const stillGroups = new Set(directoryGroupIds(dir));
  for (const event of directoryEvents(dir)) {
    throwIfAborted(signal);
    yield event;
  }
  for (const nativeId of since.users.filter((u) => !stillUsers.has(u))) yield { type: 'delete', kind: 'user', nativeId };
  for (const nativeId of since.groups.filter((g) => !stillGroups.has(g))) yield { type: 'delete', kind: 'group', nativeId };
}

/** What the task stage of an incremental run starts from. */
export interface TaskChanges {
  plan: ChangePlan;
  since: WorkManagementCheckpoint;
  /** Tasks whose own stream is gone: they and their subtasks are read again. */
  goneStreams: readonly string[];
  /** Projects to read whole (see `projectStreams`). */
  newProjects: readonly WmProject[];
  /** No workspace stream: tasks in no project have no events, so every member's tasks changed since the watermark are listed. */
  byAssignee: boolean;
}

/**
 * The tasks an incremental run reads again: every task of a project that is new or renamed, the
 * own attachments of projects the events name, tasks changed since the watermark, then tasks the
 * events name, whose stream is gone, or that failed last time, and are not read yet; then the
 * subtasks (at any depth, as the last checkpoint knew them) of every task found gone. Returns the
 * tasks found gone when read (404/403).
 */
export async function* changedTasks(ctx: TaskContext, crawler: TaskCrawler, input: TaskChanges): AsyncGenerator<SyncEvent, string[]> {
  const { plan, since } = input;
  for (const gid of plan.deleted) crawler.seen.add(gid);
  const recrawled = yield* recrawlProjects(ctx, crawler, plan, input.newProjects);

  // Changed since the watermark: a safety net for events the stream lost (delivery is at most once).
  yield* crawler.process(await modifiedSince(ctx.api, ctx.dir, since.watermark, recrawled, input.byAssignee), { recurse: false });

  // Named by events (moves, comments, followers…), whose stream is gone, or failed last time, and not read yet.
  const gone = yield* readAgain(ctx, crawler, [...plan.reread, ...input.goneStreams, ...since.failed]);
  // A task gone takes its subtasks along, and their deletion may have reached no stream read here.
  const subtasks = new Map(Object.entries(since.subtasks));
  const orphaned = [...plan.deleted, ...input.goneStreams, ...gone, ...crawler.vanished].flatMap((gid) => descendantsIn(subtasks, gid));
  return [...gone, ...(yield* readAgain(ctx, crawler, orphaned))];
}

/** Reads the tasks not read yet in this run; returns those gone (404/403) and reports those that failed. */
export async function* readAgain(ctx: TaskContext, crawler: TaskCrawler, gids: readonly string[]): AsyncGenerator<SyncEvent, string[]> {
  const pending = [...new Set(gids)].filter((gid) => !crawler.seen.has(gid)).sort(compareGids);
  if (pending.length === 0) return [];
  const reread = await readTasks(ctx.api, pending);
  for (const gid of reread.gone) crawler.seen.add(gid);
  yield* crawler.process(reread.tasks, { recurse: false });
  for (const gid of reread.failed) {
    crawler.failed.add(gid.gid);
    yield { type: 'failure', kind: 'file', nativeId: fileId.task(gid.gid), error: gid.error };
  }
  return reread.gone;
}

/** New and renamed projects read whole, then the own attachments of the others the events name; returns the projects read whole. */
async function* recrawlProjects(
  ctx: TaskContext,
  crawler: TaskCrawler,
  plan: ChangePlan,
  newProjects: readonly WmProject[],
): AsyncGenerator<SyncEvent, Set<string>> {
  const projectsById = new Map(ctx.dir.projects.map((p) => [p.gid, p]));
  const fresh = new Set(newProjects.map((p) => p.gid));
  const recrawl = [
    ...newProjects,
    ...[...plan.renamedProjects].map((g) => projectsById.get(g)).filter((p): p is WmProject => p !== undefined && !fresh.has(p.gid)),
  ];
  const recrawled = new Set(recrawl.map((p) => p.gid));
  for (const project of recrawl) yield* crawlProject(ctx, crawler, project);
  for (const gid of plan.projectAttachments) {
    const project = projectsById.get(gid);
    if (project && !recrawled.has(gid)) yield* projectAttachments(ctx, crawler, project);
  }
  return recrawled;
}
