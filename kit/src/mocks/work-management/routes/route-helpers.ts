/**
 * Lookups and listing helpers shared by the route files: gids resolve to records or 404 ("Not a
 * recognized ID" for malformed ones, "Unknown object" for unknown ones), `me` and emails resolve
 * to users, objects a user token cannot see answer 403, lists are filtered by what the caller
 * may see and paginated.
 */
import { ApiError, badRequest, forbidden, missingInput } from '../api/api-error';
import { paginate } from '../api/pagination';
import { renderMany, renderOne, type Node } from '../api/representations';
import { ok, type ApiRequest, type ApiResponse } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Gid, ResourceType, User, Workspace } from '../model';
import type { OracleObjectType } from '../visibility-oracle';

/** The record of `gid` in `map`, or 404 with the reference's wording. */
export function lookup<T>(map: ReadonlyMap<Gid, T>, type: string, gid: string | undefined): T {
  if (gid === undefined || gid === '') throw missingInput(type);
  if (!/^\d+$/.test(gid)) throw new ApiError(404, `${type}: Not a recognized ID: ${gid}`);
  const item = map.get(gid);
  if (item === undefined) throw new ApiError(404, `${type}: Unknown object: ${gid}`);
  return item;
}

/** A user by gid, `me` or email. */
export function resolveUser(req: ApiRequest, ctx: MockContext, id: string | undefined, field = 'user'): User {
  if (id === undefined || id === '') throw missingInput(field);
  if (id === 'me') return req.caller.user;
  if (id.includes('@')) {
    const gid = ctx.store.indexes.usersByEmail.get(id.toLowerCase());
    if (!gid) throw new ApiError(404, `${field}: Unknown object: ${id}`);
    return ctx.store.indexes.users.get(gid) as User;
  }
  return lookup(ctx.store.indexes.users, field, id);
}

export function requireWorkspace(ctx: MockContext, gid: string | undefined, field = 'workspace'): Workspace {
  return lookup(ctx.store.indexes.workspaces, field, gid);
}

/** The workspace `gid`, 403 unless the caller is in it. */
export function memberWorkspace(req: ApiRequest, ctx: MockContext, gid: string | undefined): Workspace {
  const ws = requireWorkspace(ctx, gid);
  assertInWorkspace(req, ctx, ws.gid);
  return ws;
}

export function isServiceAccount(req: ApiRequest): boolean {
  return req.caller.user.isServiceAccount;
}

/** Whether the caller may see an object: a service account sees everything (reference §1). */
export function callerSees(req: ApiRequest, ctx: MockContext, type: OracleObjectType, gid: Gid): boolean {
  return isServiceAccount(req) || ctx.oracle.canSee(req.caller.user.gid, type, gid);
}

export function assertVisible(req: ApiRequest, ctx: MockContext, type: OracleObjectType, gid: Gid): void {
  if (!callerSees(req, ctx, type, gid)) throw forbidden(`You do not have access to this ${type}.`);
}

export function callerInWorkspace(req: ApiRequest, ctx: MockContext, workspace: Gid): boolean {
  return isServiceAccount(req) || ctx.store.people.workspaceMembership(req.caller.user.gid, workspace)?.isActive === true;
}

export function assertInWorkspace(req: ApiRequest, ctx: MockContext, workspace: Gid): void {
  if (!callerInWorkspace(req, ctx, workspace)) throw forbidden('You do not have access to this workspace.');
}

/** Filters a list to what the caller may see (no-op for the service account). */
export function visibleOnly<T extends { gid: Gid }>(req: ApiRequest, ctx: MockContext, type: OracleObjectType, items: readonly T[]): readonly T[] {
  if (isServiceAccount(req)) return items;
  const user = req.caller.user.gid;
  return items.filter((item) => ctx.oracle.canSee(user, type, item.gid));
}

/** One page of a list, rendered compact (or per opt_fields), with `next_page` when paging. */
export function listResponse<T extends { gid: Gid }>(
  req: ApiRequest,
  ctx: MockContext,
  items: readonly T[],
  toNode: (item: T) => Node,
  options: { unpagedCap?: number } = {},
): ApiResponse {
  const page = paginate(req, ctx.pageTokens, items, (i) => i.gid, options);
  return ok(renderMany(req, ctx, page.items.map(toNode)), page.nextPage === undefined ? {} : { next_page: page.nextPage });
}

export function oneResponse(req: ApiRequest, ctx: MockContext, node: Node): ApiResponse {
  return ok(renderOne(req, ctx, node));
}

export function createdResponse(req: ApiRequest, ctx: MockContext, node: Node, path: string): ApiResponse {
  return { status: 201, body: { data: renderOne(req, ctx, node) }, headers: { location: `${req.apiBase}${path}` } };
}

export function emptyResponse(): ApiResponse {
  return ok({});
}

export function requireString(data: Record<string, unknown>, field: string): string {
  const v = data[field];
  if (v === undefined || v === null || v === '') throw missingInput(field);
  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest(`${field}: Not a string`);
  return String(v);
}

export function kindIs(ctx: MockContext, gid: Gid, ...kinds: ResourceType[]): boolean {
  const k = ctx.store.indexes.kindOf(gid);
  return k !== undefined && kinds.includes(k);
}
