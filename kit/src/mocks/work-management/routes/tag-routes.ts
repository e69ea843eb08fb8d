/**
 * Tags: a task's tags, a workspace's tags, one tag and its tasks (reference §5.9–5.13).
 */
import type { Route } from '../api/route-table';
import type { Gid, WorkManagementStore } from '../model';
import { byGid, getOne, listOf, under, workspaceParam, workspaceQuery } from './route-factories';
import { taskList, taskParam } from './task-finders';

const tagParam = byGid('tag', (s) => s.indexes.tags);
const tagsOf = (s: WorkManagementStore, ws: { gid: Gid }) => s.indexes.list(s.indexes.tagsByWorkspace.get(ws.gid), s.indexes.tags);

export const tagRoutes: Route[] = [
  listOf(
    '/tasks/:task_gid/tags',
    'tag',
    under(taskParam, (s, task) => s.indexes.list(task.tags, s.indexes.tags)),
  ),
  listOf('/tags', 'tag', under(workspaceQuery, tagsOf)),
  listOf('/workspaces/:workspace_gid/tags', 'tag', under(workspaceParam, tagsOf)),
  getOne('/tags/:tag_gid', 'tag', tagParam),
  taskList('/tags/:tag_gid/tasks', (req, ctx) => ctx.store.indexes.list(ctx.store.indexes.tasksByTag.get(tagParam(req, ctx).gid), ctx.store.indexes.tasks)),
];
