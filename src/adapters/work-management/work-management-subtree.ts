import { SourceNotFoundError, SourcePermissionError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import { MAX_SUBTASK_DEPTH, type TaskCrawler } from './work-management-tasks';

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

async function listSubtasks(api: WorkManagementApi, gid: string): Promise<string[]> {
  try {
    return (await api.all<{ gid: string }>(`/tasks/${gid}/subtasks`, {}, 'name')).map((t) => t.gid);
  } catch (error) {
    if (error instanceof SourceNotFoundError || error instanceof SourcePermissionError) return [];
    throw error;
  }
}
