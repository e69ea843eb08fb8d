import type { SyncEvent } from '../adapter';
import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import { streamRoots } from './work-management-stream-roots';
import { taskStreams } from './work-management-streams';
import { readNewTrees } from './work-management-subtree';
import type { TaskContext, TaskCrawler } from './work-management-tasks';

/**
 * An incremental run's task streams (per-project streams): those of the roots of the project-less
 * trees of the tasks read (`streamRoots`, `taskStreams`), each new root's tree read again
 * (`readNewTrees`), then the roots walked again, until no new root appears. A task that tree
 * read may head a tree of its own now, or sit under one no stream carries: a subtask moved out
 * (`setParent`) after its parent left its last project, whose `removed` event went to the streams
 * of a parent that had none yet. The trees of the tasks that `left` a project or their parent are
 * read again with the first new roots' (a task that left its last project, then was moved under a
 * tree that has a stream: what changed in its tree in between reached no stream, and it is no new
 * root). `deleted` gains the tasks found gone. Returns the streams and the subtasks listed of
 * tasks this run did not read.
 */
export async function* followNewRoots(
  ctx: TaskContext,
  crawler: TaskCrawler,
  since: Pick<WorkManagementCheckpoint, 'streams' | 'subtasks'>,
  before: Readonly<Record<string, string>>,
  deleted: Set<string>,
  left: ReadonlySet<string>,
): AsyncGenerator<SyncEvent, { tasks: Record<string, string>; listed: Map<string, string[]> }> {
  let tasks = { ...before };
  const listed = new Map<string, string[]>();
  const followed = new Set<string>();
  let also = [...left].filter((gid) => !deleted.has(gid));
  for (;;) {
    const streamed = new Set(Object.keys(tasks).filter((gid) => !deleted.has(gid)));
    tasks = await taskStreams(ctx.api, tasks, deleted, crawler, await streamRoots(ctx.api, crawler, streamed));
    const fresh = Object.keys(tasks).filter((gid) => !(gid in since.streams.tasks) && !followed.has(gid));
    if (fresh.length === 0 && also.length === 0) return { tasks, listed };
    for (const gid of fresh) followed.add(gid);
    const trees = yield* readNewTrees(ctx, crawler, since.subtasks, [...new Set([...fresh, ...also])]);
    also = [];
    for (const gid of trees.gone) {
      deleted.add(gid);
      delete tasks[gid];
    }
    for (const [gid, kids] of trees.listed) listed.set(gid, kids);
  }
}
