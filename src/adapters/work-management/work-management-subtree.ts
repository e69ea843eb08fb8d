import type { SyncEvent } from '../adapter';
import { SourceNotFoundError, SourcePermissionError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import { readAgain } from './work-management-changes';
import { MAX_SUBTASK_DEPTH, type TaskContext, type TaskCrawler } from './work-management-tasks';

/**
 * The subtasks, level by level down to `MAX_SUBTASK_DEPTH`, of the tasks that have a stream of
 * their own now (`after`) and had none before (`before`): task gid → its subtasks, as this run
 * read them where it did, else listed. Such a task heads a tree no project stream carries; when
 * its stream is gone (the task deleted, and its subtasks with it), the checkpoint's subtasks are
 * all that names them, so every level must be there, not only those the run happened to read. A
 * subtask gone meanwhile (404/403) has none; any other failure throws, and the run fails rather
 * than lose track of a tree.
 */
export async function newSubtrees(
  api: WorkManagementApi,
  crawler: Pick<TaskCrawler, 'children'>,
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  let level = Object.keys(after).filter((gid) => !(gid in before));
  for (let depth = 0; depth < MAX_SUBTASK_DEPTH && level.length > 0; depth += 1) {
    const children = await Promise.all(level.map(async (gid) => [gid, crawler.children.get(gid) ?? (await listSubtasks(api, gid))] as const));
    level = [];
    for (const [gid, kids] of children) {
      out.set(gid, kids);
      level.push(...kids.filter((kid) => !out.has(kid)));
    }
  }
  return out;
}

/**
 * An incremental run's new roots (tasks with a stream of their own now and none before: a task
 * that left its last project, a tree no listing reached before): every task of their trees, down
 * to `MAX_SUBTASK_DEPTH`, read again unless read already, with the subtasks the last checkpoint
 * knew (`known`) at every level. What changed in such a tree between the root leaving its last
 * project and its stream's first token reached no stream: a subtask changed (a follower removed)
 * is only found by reading it, one deleted only by reading it where it used to be (404). Returns
 * the subtasks listed (of tasks this run did not read) and the tasks found gone.
 */
export async function* readNewTrees(
  ctx: TaskContext,
  crawler: TaskCrawler,
  known: Readonly<Record<string, string[]>>,
  roots: readonly string[],
): AsyncGenerator<SyncEvent, { listed: Map<string, string[]>; gone: string[] }> {
  const listed = new Map<string, string[]>();
  const gone = new Set<string>();
  const visited = new Set(roots);
  let level = [...roots];
  for (let depth = 0; depth < MAX_SUBTASK_DEPTH && level.length > 0; depth += 1) {
    const children = await Promise.all(
      level.map(async (gid) => {
        const read = crawler.children.get(gid);
        if (read) return [gid, read] as const;
        const kids = gone.has(gid) || crawler.vanished.has(gid) ? [] : await listSubtasks(ctx.api, gid);
        listed.set(gid, kids);
        return [gid, kids] as const;
      }),
    );
    const next: string[] = [];
    for (const [gid, kids] of children) {
      for (const kid of [...kids, ...(known[gid] ?? [])]) {
        if (visited.has(kid)) continue;
        visited.add(kid);
        next.push(kid);
      }
    }
    for (const gid of yield* readAgain(ctx, crawler, next)) gone.add(gid);
    level = next;
  }
  return { listed, gone: [...gone] };
}

async function listSubtasks(api: WorkManagementApi, gid: string): Promise<string[]> {
  try {
    return (await api.all<{ gid: string }>(`/tasks/${gid}/subtasks`, {}, 'name')).map((t) => t.gid);
  } catch (error) {
    if (error instanceof SourceNotFoundError || error instanceof SourcePermissionError) return [];
    throw error;
  }
}
