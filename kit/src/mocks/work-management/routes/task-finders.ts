/**
 * Finding tasks for the route files: a task the caller may see, task listings with their shared
 * filters (`completed_since`, `modified_since`, `custom_type`), and the author recorded for writes.
 */
import { nodeMaker } from '../api/representations';
import { queryTime, type ApiRequest, type ApiResponse, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Gid, Task } from '../model';
import { customTypeFilter } from '../rules/custom-types';
import { assertVisible, isServiceAccount, listResponse, lookup, visibleOnly } from './route-helpers';
import type { Finder } from './route-factories';

/** Filters shared by every task listing, then visibility, then one page. */
export function taskListing(req: ApiRequest, ctx: MockContext, tasks: Task[]): ApiResponse {
  const completedSince = queryTime(req, 'completed_since');
  const modifiedSince = queryTime(req, 'modified_since');
  const byType = customTypeFilter(ctx.store, req.query.custom_type);
  let list = tasks;
  if (completedSince !== undefined) list = list.filter((t) => !t.completed || (t.completedAt ?? 0) >= completedSince);
  if (modifiedSince !== undefined) list = list.filter((t) => t.modifiedAt >= modifiedSince);
  if (byType) list = list.filter(byType);
  return listResponse(req, ctx, visibleOnly(req, ctx, 'task', list), nodeMaker('task'));
}

/** `GET path`: a task listing of the tasks `tasks` finds. */
export function taskList(path: string, tasks: Finder<Task[]>): Route {
  return { method: 'GET', path, handler: (req, ctx) => taskListing(req, ctx, tasks(req, ctx)) };
}

export function visibleTask(req: ApiRequest, ctx: MockContext, gid: string | undefined, field = 'task'): Task {
  const task = lookup(ctx.store.indexes.tasks, field, gid);
  assertVisible(req, ctx, 'task', task.gid);
  return task;
}

/** The task of the path (`:task_gid`), 403 unless the caller may see it. */
export const taskParam: Finder<Task> = (req, ctx) => visibleTask(req, ctx, req.params.task_gid);

/** The author recorded for a write: the caller, or nobody for the service account. */
export function authorOf(req: ApiRequest): Gid | null {
  return isServiceAccount(req) ? null : req.caller.user.gid;
}
