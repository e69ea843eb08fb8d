/** Jobs, graph and resource exports, organization exports (reference §8). */
import { forbidden } from '../api/api-error';
import { bodyData, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import { isServiceAccount, lookup, requireString } from './route-helpers';
import { created, getOne } from './route-factories';

/** Exports started are in the audit log (rules/audit-log.ts). */
function auditExport(ctx: MockContext, workspace: string, eventType: string, job: string, details: Record<string, unknown>): void {
  ctx.store.indexes.audit.append(ctx.store.indexes, {
    workspace,
    eventType,
    eventCategory: 'content_export',
    resource: { gid: job, resource_type: 'job' },
    details,
  });
}

/** 403 unless the caller is a service account. */
function serviceAccountOnly(req: ApiRequest, what: string): void {
  if (!isServiceAccount(req)) throw forbidden(`${what} are available to service accounts only.`);
}

export const jobRoutes: Route[] = [
  getOne('/jobs/:job_gid', 'job', (req, ctx) => {
    const job = lookup(ctx.jobs.jobs, 'job', req.params.job_gid);
    // Only the creator of a duplication can read its status.
    if ((job.subtype === 'duplicate_task' || job.subtype === 'duplicate_project') && job.createdBy !== req.caller.user.gid)
      throw forbidden('Only the creator of a duplication can read its job.');
    return job;
  }),
  created('/exports/graph', 'job', 'jobs', (req, ctx) => {
    const parent = requireString(bodyData(req), 'parent');
    const job = ctx.jobs.graphExport(parent, req.caller.user.gid);
    auditExport(ctx, job.workspace, 'graph_export_started', job.gid, { parent: ctx.store.recorder.ref(ctx.store.indexes.kindOf(parent) ?? 'project', parent) });
    return job;
  }),
  created('/exports/resource', 'job', 'jobs', (req, ctx) => {
    serviceAccountOnly(req, 'Resource exports');
    const job = ctx.jobs.resourceExport(bodyData(req), req.caller.user.gid);
    auditExport(ctx, job.workspace, 'resource_export_started', job.gid, {});
    return job;
  }),
  created('/organization_exports', 'organizationExport', 'organization_exports', (req, ctx) => {
    serviceAccountOnly(req, 'Organization exports');
    const e = ctx.jobs.organizationExport(requireString(bodyData(req), 'organization'), req.caller.user.gid);
    ctx.store.indexes.audit.append(ctx.store.indexes, {
      workspace: e.organization,
      eventType: 'organization_export_started',
      eventCategory: 'content_export',
      resource: { gid: e.gid, resource_type: 'organization_export' },
      details: {},
    });
    return e;
  }),
  getOne('/organization_exports/:organization_export_gid', 'organizationExport', (req, ctx) =>
    lookup(ctx.jobs.organizationExports, 'organization_export', req.params.organization_export_gid),
  ),
];
