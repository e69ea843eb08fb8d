/**
 * Attachments of tasks and projects: list, read, delete, and attach an external link (reference §5.9–5.13).
 */
import { badRequest, missingInput } from '../api/api-error';
import { bodyData, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Attachment, Gid, WorkManagementStore } from '../model';
import { assertVisible, kindIs, lookup, requireString } from './route-helpers';
import { act, byGid, created, getOne, listOf, under, visible } from './route-factories';
import { authorOf, taskParam, visibleTask } from './task-finders';

const attachmentParam = visible(
  'attachment',
  byGid('attachment', (s) => s.indexes.attachments),
);
const attachmentsOf = (s: WorkManagementStore, parent: Gid): Attachment[] => s.indexes.list(s.indexes.attachmentsByParent.get(parent), s.indexes.attachments);

/** `?parent=`: a project or a task the caller may see. */
function attachmentsOfParent(req: ApiRequest, ctx: MockContext): Attachment[] {
  const parent = req.query.parent;
  if (parent === undefined || parent === '') throw missingInput('parent');
  if (kindIs(ctx, parent, 'project')) assertVisible(req, ctx, 'project', lookup(ctx.store.indexes.projects, 'parent', parent).gid);
  else visibleTask(req, ctx, parent, 'parent');
  return attachmentsOf(ctx.store, parent);
}

/** JSON bodies can only attach links; file uploads are multipart (not modelled by the mock). */
function attachLink(req: ApiRequest, ctx: MockContext): Attachment {
  const data = bodyData(req);
  if (data.resource_subtype !== 'external')
    throw badRequest('file: Missing input (the mock accepts only external links: resource_subtype "external" with url and name)');
  const parent = requireString(data, 'parent');
  if (kindIs(ctx, parent, 'task')) visibleTask(req, ctx, parent, 'parent');
  else lookup(ctx.store.indexes.projects, 'parent', parent);
  const a = ctx.store.tasks.addAttachment({ parent, name: requireString(data, 'name'), host: 'external', kind: null, createdBy: authorOf(req) });
  requireString(data, 'url');
  return a;
}

export const attachmentRoutes: Route[] = [
  listOf('/attachments', 'attachment', attachmentsOfParent),
  listOf(
    '/tasks/:task_gid/attachments',
    'attachment',
    under(taskParam, (s, task) => attachmentsOf(s, task.gid)),
  ),
  getOne('/attachments/:attachment_gid', 'attachment', attachmentParam),
  act('DELETE', '/attachments/:attachment_gid', (req, ctx) => ctx.store.tasks.deleteAttachment(attachmentParam(req, ctx))),
  created('/attachments', 'attachment', 'attachments', attachLink),
];
