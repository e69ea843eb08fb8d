import type { SyncEvent } from '../adapter';
import { fileId } from './work-management-mapping';
import { descendantsIn } from './work-management-run-checkpoint';
import { recordStamp } from './work-management-record-stamp';
import { streamRoots } from './work-management-stream-roots';
import { taskStreams } from './work-management-streams';
import { newSubtrees } from './work-management-subtree';
import { readTasks, type TaskContext, type TaskCrawler } from './work-management-tasks';

/**
 * A full run's new roots of trees of tasks in no project (per-project streams): their streams
 * start once the whole workspace is read, after their tasks were, so what changed in such a tree
 * meanwhile (a follower removed, a subtask added or deleted) is in no stream. Every task of those
 * trees this run read is read again (its record, batched): one whose record changed is read whole
 * again, with any new subtasks; one gone (404/403) is deleted, with its attachments.
 */
export async function* refreshTrees(
  ctx: TaskContext,
  crawler: TaskCrawler,
  subtasks: ReadonlyMap<string, readonly string[]>,
  roots: readonly string[],
): AsyncGenerator<SyncEvent> {
  const members = [...new Set(roots.flatMap((root) => [root, ...descendantsIn(subtasks, root)]))].filter((gid) => crawler.stamps.has(gid));
  if (members.length === 0) return;
  const again = await readTasks(ctx.api, members);
  for (const gid of again.gone) {
    yield { type: 'delete', kind: 'file', nativeId: fileId.task(gid) };
    for (const id of crawler.attachments.get(gid) ?? []) yield { type: 'delete', kind: 'file', nativeId: fileId.attachment(id) };
    crawler.forget(gid);
  }
  for (const { gid, error } of again.failed) {
    crawler.failed.add(gid);
    yield { type: 'failure', kind: 'file', nativeId: fileId.task(gid), error };
  }
  const changed = again.tasks.filter((task) => crawler.stamps.get(task.gid) !== recordStamp(task));
  for (const task of changed) crawler.seen.delete(task.gid);
  yield* crawler.process(changed, { recurse: true });
}

/**
 * A full run's task streams, once the whole workspace is read (per-project streams): one per root
 * of a tree of tasks in no project (`streamRoots`), those trees' subtasks where the run did not
 * read them (`newSubtrees`), then the trees read again (`refreshTrees`); a root found gone has no
 * stream. A task read again may head a tree of its own by then (moved to no parent, or under a
 * tree no stream carries): the roots are walked again, until no new one appears. `before`: the
 * streams of the run this one resumes, if any.
 */
export async function* startTreeStreams(
  ctx: TaskContext,
  crawler: TaskCrawler,
  before: Readonly<Record<string, string>>,
): AsyncGenerator<SyncEvent, { tasks: Record<string, string>; listed: Map<string, string[]> }> {
  let tasks = { ...before };
  const listed = new Map<string, string[]>();
  const followed = new Set(Object.keys(before));
  for (;;) {
    const was = tasks;
    tasks = await taskStreams(ctx.api, was, new Set(), crawler, await streamRoots(ctx.api, crawler, new Set(Object.keys(was))));
    const fresh = Object.keys(tasks).filter((gid) => !followed.has(gid));
    if (fresh.length === 0) break;
    for (const gid of fresh) followed.add(gid);
    for (const [gid, kids] of await newSubtrees(ctx.api, crawler, was, tasks)) listed.set(gid, kids);
    yield* refreshTrees(ctx, crawler, new Map([...listed, ...crawler.children]), fresh);
  }
  for (const gid of crawler.vanished) delete tasks[gid];
  return { tasks, listed };
}
