/**
 * `GET /events?resource=&sync=` (100 events per call) and `GET /workspaces/{gid}/events?sync=`
 * (1,000 per call, the whole domain): the sync-token protocol of rules/events.ts.
 */
import { ApiError, missingInput } from '../api/api-error';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import { SYNC_INVALID_MESSAGE, renderEvent } from '../rules/events';
import { lookup, requireWorkspace, assertInWorkspace } from './route-helpers';

const STREAMABLE = new Set(['project', 'task', 'workspace', 'team', 'portfolio', 'goal', 'tag', 'section']);

function stream(req: ApiRequest, ctx: MockContext, resource: string, max: number): ApiResponse {
  const log = ctx.store.indexes.events;
  const token = req.query.sync;
  const fresh = (): string => ctx.syncTokens.issue(resource, log.head(), log.epoch);
  const position = token ? ctx.syncTokens.verify(token, resource, log.epoch) : undefined;
  if (!position || log.isPurged(position.position)) {
    throw new ApiError(412, SYNC_INVALID_MESSAGE, { sync: fresh() });
  }
  const page = log.read(resource, position.position, max);
  return ok(page.events.map(renderEvent), { sync: ctx.syncTokens.issue(resource, page.position, log.epoch), has_more: page.hasMore });
}

/** The kind of a resource one may listen to (events, webhooks); 400 when missing, 404 when unknown. */
export function streamableKind(ctx: MockContext, resource: string | undefined): string {
  if (resource === undefined || resource === '') throw missingInput('resource');
  const kind = ctx.store.indexes.kindOf(resource);
  if (
    !kind ||
    !STREAMABLE.has(kind) ||
    (kind === 'task' && !ctx.store.indexes.tasks.has(resource)) ||
    (kind === 'project' && !ctx.store.indexes.projects.has(resource))
  ) {
    lookup(new Map<string, never>(), 'resource', resource);
  }
  return kind as string;
}

export const eventRoutes: Route[] = [
  {
    method: 'GET',
    path: '/events',
    handler: (req, ctx) => {
      const resource = req.query.resource as string;
      streamableKind(ctx, resource);
      return stream(req, ctx, resource, 100);
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/events',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      return stream(req, ctx, ws.gid, 1000);
    },
  },
];
