/** Jobs, graph and resource exports, organization exports (reference §8). */
import { forbidden } from '../api/api-error';
import { node } from '../api/representations';
import { bodyData, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import { createdResponse, isServiceAccount, lookup, oneResponse, requireString } from './route-helpers';

/** Exports started are in the audit log (rules/audit-log.ts). */
function auditExport(ctx: MockContext, workspace: string, eventType: string, job: string, details: Record<string, unknown>): void {
  ctx.store.audit.append(ctx.store, { workspace, eventType, eventCategory: 'content_export', resource: { gid: job, resource_type: 'job' }, details });
}

export const jobRoutes: Route[] = [
  {
    method: 'GET',
    path: '/jobs/:job_gid',
    handler: (req, ctx) => {
      const job = lookup(ctx.jobs.jobs, 'job', req.params.job_gid);
      // Only the creator of a duplication can read its status.
      if ((job.subtype === 'duplicate_task' || job.subtype === 'duplicate_project') && job.createdBy !== req.caller.user.gid) throw forbidden('Only the creator of a duplication can read its job.');
      return oneResponse(req, ctx, node('job', job));
    },
  },
  {
    method: 'POST',
    path: '/exports/graph',
    handler: (req, ctx) => {
      const parent = requireString(bodyData(req), 'parent');
      const job = ctx.jobs.graphExport(parent, req.caller.user.gid);
      auditExport(ctx, job.workspace, 'graph_export_started', job.gid, { parent: ctx.store.ref(ctx.store.kindOf(parent) ?? 'project', parent) });
      return createdResponse(req, ctx, node('job', job), `/jobs/${job.gid}`);
    },
  },
  {
    method: 'POST',
    path: '/exports/resource',
    handler: (req, ctx) => {
      if (!isServiceAccount(req)) throw forbidden('Resource exports are available to service accounts only.');
      const job = ctx.jobs.resourceExport(bodyData(req), req.caller.user.gid);
      auditExport(ctx, job.workspace, 'resource_export_started', job.gid, {});
      return createdResponse(req, ctx, node('job', job), `/jobs/${job.gid}`);
    },
  },
  {
    method: 'POST',
    path: '/organization_exports',
    handler: (req, ctx) => {
      if (!isServiceAccount(req)) throw forbidden('Organization exports are available to service accounts only.');
      const e = ctx.jobs.organizationExport(requireString(bodyData(req), 'organization'), req.caller.user.gid);
      ctx.store.audit.append(ctx.store, { workspace: e.organization, eventType: 'organization_export_started', eventCategory: 'content_export', resource: { gid: e.gid, resource_type: 'organization_export' }, details: {} });
      return createdResponse(req, ctx, node('organizationExport', e), `/organization_exports/${e.gid}`);
    },
  },
  {
    method: 'GET',
    path: '/organization_exports/:organization_export_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('organizationExport', lookup(ctx.jobs.organizationExports, 'organization_export', req.params.organization_export_gid))),
  },
];
