/**
 * Attachments of tasks and projects: list, read, delete, and attach an external link (reference §5.9–5.13).
 */
import { badRequest, missingInput } from '../api/api-error';
import { bodyData, type Route } from '../api/route-table';
import { node, nodeMaker } from '../api/representations';
import { assertVisible, createdResponse, emptyResponse, kindIs, listResponse, lookup, oneResponse, requireString } from './route-helpers';
import { authorOf, visibleTask } from './task-routes';

export const attachmentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/attachments',
    handler: (req, ctx) => {
      const parent = req.query.parent;
      if (parent === undefined || parent === '') throw missingInput('parent');
      if (kindIs(ctx, parent, 'project')) assertVisible(req, ctx, 'project', lookup(ctx.store.projects, 'parent', parent).gid);
      else visibleTask(req, ctx, parent, 'parent');
      return listResponse(req, ctx, ctx.store.list(ctx.store.attachmentsByParent.get(parent), ctx.store.attachments), nodeMaker('attachment'));
    },
  },
  {
    method: 'GET',
    path: '/tasks/:task_gid/attachments',
    handler: (req, ctx) => {
      const task = visibleTask(req, ctx, req.params.task_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.attachmentsByParent.get(task.gid), ctx.store.attachments), nodeMaker('attachment'));
    },
  },
  {
    method: 'GET',
    path: '/attachments/:attachment_gid',
    handler: (req, ctx) => {
      const a = lookup(ctx.store.attachments, 'attachment', req.params.attachment_gid);
      assertVisible(req, ctx, 'attachment', a.gid);
      return oneResponse(req, ctx, node('attachment', a));
    },
  },
  {
    method: 'DELETE',
    path: '/attachments/:attachment_gid',
    handler: (req, ctx) => {
      const a = lookup(ctx.store.attachments, 'attachment', req.params.attachment_gid);
      assertVisible(req, ctx, 'attachment', a.gid);
      ctx.store.deleteAttachment(a);
      return emptyResponse();
    },
  },
  {
    method: 'POST',
    path: '/attachments',
    handler: (req, ctx) => {
      // JSON bodies can only attach links; file uploads are multipart (not modelled by the mock).
      const data = bodyData(req);
      if (data.resource_subtype !== 'external') throw badRequest('file: Missing input (the mock accepts only external links: resource_subtype "external" with url and name)');
      const parent = requireString(data, 'parent');
      if (kindIs(ctx, parent, 'task')) visibleTask(req, ctx, parent, 'parent');
      else lookup(ctx.store.projects, 'parent', parent);
      const a = ctx.store.addAttachment({ parent, name: requireString(data, 'name'), host: 'external', kind: null, createdBy: authorOf(req) });
      requireString(data, 'url');
      return createdResponse(req, ctx, node('attachment', a), `/attachments/${a.gid}`);
    },
  },
];
