import type { SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { SourceError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import type { Directory } from './work-management-directory';
import { fileId } from './work-management-mapping';
import type { WmProject, WmTaskRecord } from './work-management-records';
import { TASK_FIELDS, projectAttachmentEvents, readTasks, type TaskContext, type TaskCrawler } from './work-management-tasks';

/** A project's tasks (with subtasks) and its own attachments. */
export async function* crawlProject(ctx: TaskContext, crawler: TaskCrawler, project: WmProject): AsyncGenerator<SyncEvent> {
  yield* crawler.walk(ctx.api.list<WmTaskRecord>(`/projects/${project.gid}/tasks`, {}, TASK_FIELDS), { recurse: true });
  yield* projectAttachments(ctx, crawler, project);
}

/** A project's own attachments, recorded in the crawler as the project's. */
export async function* projectAttachments(ctx: TaskContext, crawler: TaskCrawler, project: WmProject): AsyncGenerator<SyncEvent> {
  const { events, attachmentIds } = await projectAttachmentEvents(ctx, project);
  crawler.attachments.set(project.gid, attachmentIds);
  crawler.attachmentFiles += attachmentIds.length;
  for (const event of events) {
    throwIfAborted(ctx.signal);
    yield event;
  }
}

/**
 * Tasks in no project live in their assignee's task list ("My Tasks"): list every member's
 * list (compact), then read in full only the tasks no project showed.
 */
export async function* crawlTaskLists(ctx: TaskContext, crawler: TaskCrawler, dir: Directory): AsyncGenerator<SyncEvent> {
  const lists = await Promise.all(
    dir.memberships.map(async (m) => {
      const list = m.user_task_list?.gid ?? (await userTaskList(ctx.api, m.user.gid, dir.workspace.gid));
      return list ? ctx.api.all<{ gid: string }>(`/user_task_lists/${list}/tasks`, {}, 'name') : [];
    }),
  );
  const unseen = [...new Set(lists.flat().map((t) => t.gid))].filter((gid) => !crawler.seen.has(gid));
  const read = await readTasks(ctx.api, unseen);
  for (const f of read.failed) {
    crawler.failed.add(f.gid);
    yield { type: 'failure', kind: 'file', nativeId: fileId.task(f.gid), error: f.error };
  }
  yield* crawler.process(read.tasks, { recurse: true });
}

async function userTaskList(api: WorkManagementApi, user: string, workspace: string): Promise<string | undefined> {
  try {
    const { data } = await api.get<{ data: { gid: string } }>(`/users/${user}/user_task_list`, { workspace, opt_fields: 'name' });
    return data.gid;
  } catch (error) {
    if (error instanceof SourceError && error.action === 'skip-item') return undefined;
    throw error;
  }
}

/**
 * Tasks of every project (not crawled whole in this run) modified since the watermark, and with
 * `byAssignee` (no workspace stream: tasks in no project have no events) every member's.
 */
export async function modifiedSince(
  api: WorkManagementApi,
  dir: Directory,
  watermark: string,
  skip: ReadonlySet<string>,
  byAssignee: boolean,
): Promise<WmTaskRecord[]> {
  const listings = [
    ...dir.projects.filter((p) => !skip.has(p.gid)).map((p) => api.all<WmTaskRecord>('/tasks', { project: p.gid, modified_since: watermark }, TASK_FIELDS)),
    ...(byAssignee
      ? dir.memberships.map((m) =>
          api.all<WmTaskRecord>('/tasks', { assignee: m.user.gid, workspace: dir.workspace.gid, modified_since: watermark }, TASK_FIELDS),
        )
      : []),
  ];
  const seen = new Set<string>();
  return (await Promise.all(listings)).flat().filter((t) => (seen.has(t.gid) ? false : (seen.add(t.gid), true)));
}
