/**
 * Tags: a task's tags, a workspace's tags, one tag and its tasks (reference §5.9–5.13).
 */
import { missingInput } from '../api/api-error';
import { type Route } from '../api/route-table';
import { node, nodeMaker } from '../api/representations';
import { listResponse, lookup, oneResponse, requireWorkspace } from './route-helpers';
import { taskListing, visibleTask } from './task-routes';

export const tagRoutes: Route[] = [
  {
    method: 'GET',
    path: '/tasks/:task_gid/tags',
    handler: (req, ctx) => {
      const task = visibleTask(req, ctx, req.params.task_gid);
      return listResponse(req, ctx, ctx.store.list(task.tags, ctx.store.tags), nodeMaker('tag'));
    },
  },
  {
    method: 'GET',
    path: '/tags',
    handler: (req, ctx) => {
      if (req.query.workspace === undefined) throw missingInput('workspace');
      const ws = requireWorkspace(ctx, req.query.workspace);
      return listResponse(req, ctx, ctx.store.list(ctx.store.tagsByWorkspace.get(ws.gid), ctx.store.tags), nodeMaker('tag'));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/tags',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.tagsByWorkspace.get(ws.gid), ctx.store.tags), nodeMaker('tag'));
    },
  },
  {
    method: 'GET',
    path: '/tags/:tag_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('tag', lookup(ctx.store.tags, 'tag', req.params.tag_gid))),
  },
  {
    method: 'GET',
    path: '/tags/:tag_gid/tasks',
    handler: (req, ctx) => taskListing(req, ctx, ctx.store.list(ctx.store.tasksByTag.get(lookup(ctx.store.tags, 'tag', req.params.tag_gid).gid), ctx.store.tasks)),
  },
];
