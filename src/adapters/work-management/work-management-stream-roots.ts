import { SourceNotFoundError, SourcePermissionError, SourceRateLimitError, SourceUnavailableError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import type { TaskHome } from './work-management-records';
import { MAX_SUBTASK_DEPTH, type TaskCrawler } from './work-management-tasks';

/**
 * The tasks that need an events stream of their own, among those read in this run and their
 * ancestors. A task's events reach the streams of its projects and of its ancestors' projects
 * (reference §7, events bubble up), and the task's own stream and its ancestors'. A task in no
 * project whose ancestors are in none either reaches no project stream: the topmost of its
 * ancestors (the root of that project-less tree) gets a stream, which carries the whole tree's
 * events, and when the root is deleted (its subtasks with it) the stream going away names them all.
 *
 * `streamed`: the tasks that had a stream of their own after the last run. One of them not read
 * again in this run is taken to be a root still (a change to it is an event on its own stream, and
 * that event has it read again), so a task under it costs no further read. An ancestor that cannot
 * be read (404/403, or still 5xx/429 after the client's retries) stops the walk: the last task
 * below it that could be read gets the stream. That stream carries the events of every task under
 * it, as the root's would; failing the run instead would hold back every deletion and revocation of
 * the run, and of each run after it, for as long as that one record fails. When the task is read
 * again in a later run, the walk goes up again.
 */
export async function streamRoots(api: WorkManagementApi, crawler: Pick<TaskCrawler, 'homes'>, streamed: ReadonlySet<string>): Promise<Set<string>> {
  const reads = new Map<string, Promise<TaskHome | undefined>>();
  const homeOf = (gid: string): Promise<TaskHome | undefined> => {
    const read = crawler.homes.get(gid);
    if (read) return Promise.resolve(read);
    let home = reads.get(gid);
    if (!home) reads.set(gid, (home = readHome(api, gid)));
    return home;
  };
  const walk = async (gid: string, home: TaskHome): Promise<string | undefined> => {
    for (let depth = 0; depth <= MAX_SUBTASK_DEPTH; depth += 1) {
      if (home.inProject) return undefined;
      if (!home.parent) return gid;
      if (streamed.has(home.parent) && !crawler.homes.has(home.parent)) return home.parent;
      const parent = await homeOf(home.parent);
      if (!parent) return gid; // an ancestor that cannot be read: the stream goes on the last one that can
      [gid, home] = [home.parent, parent];
    }
    return gid;
  };
  const roots = await Promise.all([...crawler.homes].map(([gid, home]) => walk(gid, home)));
  return new Set(roots.filter((gid): gid is string => gid !== undefined));
}

async function readHome(api: WorkManagementApi, gid: string): Promise<TaskHome | undefined> {
  try {
    const { data } = await api.get<{ data: { projects?: Array<{ gid: string }>; parent?: { gid: string } | null } }>(`/tasks/${gid}`, {
      opt_fields: 'projects,parent',
    });
    return { inProject: (data.projects ?? []).length > 0, parent: data.parent?.gid ?? null };
  } catch (error) {
    if (unreadable(error)) return undefined;
    throw error;
  }
}

/** Gone, hidden, or failing after the client's retries: the walk stops below it. Anything else (401, an abort) fails the run. */
function unreadable(error: unknown): boolean {
  return [SourceNotFoundError, SourcePermissionError, SourceUnavailableError, SourceRateLimitError].some((type) => error instanceof type);
}
