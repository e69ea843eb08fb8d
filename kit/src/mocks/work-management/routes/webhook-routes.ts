/**
 * `POST /webhooks`, `GET /webhooks?workspace=&resource=`, `GET /webhooks/{gid}`,
 * `DELETE /webhooks/{gid}`: the webhooks of rules/webhooks.ts (handshake during the create).
 */
import { badRequest, missingInput } from '../api/api-error';
import { bodyData, ok, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Gid, ResourceType } from '../model';
import { parseFilters, renderWebhook } from '../rules/webhooks';
import { streamableKind } from './event-routes';
import { lookup, requireWorkspace } from './route-helpers';

function workspaceOf(ctx: MockContext, gid: Gid): Gid {
  const ix = ctx.store.indexes;
  if (ix.workspaces.has(gid)) return gid;
  const section = ix.sections.get(gid);
  const project = ix.projects.get(section ? section.project : gid);
  return (
    project?.workspace ??
    ix.tasks.get(gid)?.workspace ??
    ix.teams.get(gid)?.workspace ??
    ix.portfolios.get(gid)?.workspace ??
    ix.goals.get(gid)?.workspace ??
    ix.tags.get(gid)?.workspace ??
    ''
  );
}

function targetOf(raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') throw missingInput('target');
  if (typeof raw !== 'string') throw badRequest('target: Invalid URL');
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
  } catch {
    throw badRequest('target: Invalid URL');
  }
  return raw;
}

export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/webhooks',
    handler: async (req, ctx) => {
      const data = bodyData(req);
      const resource = typeof data.resource === 'string' ? data.resource : undefined;
      const kind = streamableKind(ctx, resource) as ResourceType;
      const target = targetOf(data.target);
      const filters = parseFilters(data.filters);
      const secret = await ctx.webhooks.handshake(target);
      const gid = ctx.store.indexes.nextGid('webhook');
      const hook = {
        gid,
        resource: ctx.store.recorder.ref(kind, resource as Gid),
        workspace: workspaceOf(ctx, resource as Gid),
        target,
        filters,
        secret,
        active: true,
        createdAt: ctx.store.indexes.now(),
        lastSuccessAt: null,
        lastFailureAt: null,
        lastFailureContent: '',
        deliveryRetryCount: 0,
      };
      ctx.webhooks.add(hook);
      // The reference's example also returns the secret in the body.
      return { status: 201, body: { data: renderWebhook(hook), 'X-Hook-Secret': secret }, headers: { location: `/webhooks/${gid}` } };
    },
  },
  {
    method: 'GET',
    path: '/webhooks',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.query.workspace);
      return ok(ctx.webhooks.list(ws.gid, req.query.resource || undefined).map(renderWebhook));
    },
  },
  {
    method: 'GET',
    path: '/webhooks/:webhook_gid',
    handler: (req, ctx) => ok(renderWebhook(lookup(ctx.webhooks.asMap(), 'webhook', req.params.webhook_gid))),
  },
  {
    method: 'DELETE',
    path: '/webhooks/:webhook_gid',
    handler: (req, ctx) => {
      const hook = lookup(ctx.webhooks.asMap(), 'webhook', req.params.webhook_gid);
      ctx.webhooks.delete(hook.gid);
      return ok({});
    },
  },
];
