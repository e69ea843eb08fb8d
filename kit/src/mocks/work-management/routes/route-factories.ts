/**
 * Route factories: the shapes most routes of the mock share, so that a route file is a table of
 * declarations. A route names what it is about with a finder (a record from a path or query
 * parameter, with its 404 and 403 checks) and what it answers with: one record (`getOne`,
 * `changed`), a page of records (`listOf`), a new record (`created`) or nothing (`act`).
 */
import { node, nodeMaker, type NodeType, type NodeTypes } from '../api/representations';
import type { ApiRequest, HttpMethod, Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Gid, Workspace, WorkManagementStore } from '../model';
import type { OracleObjectType } from '../visibility-oracle';
import {
  assertInWorkspace,
  assertVisible,
  createdResponse,
  emptyResponse,
  listResponse,
  lookup,
  memberWorkspace,
  oneResponse,
  requireWorkspace,
} from './route-helpers';

/** The record (or records) a route is about, found from the request, its checks made. */
export type Finder<T> = (req: ApiRequest, ctx: MockContext) => T;

type WithGid<K extends NodeType> = NodeTypes[K] & { gid: Gid };

/** `GET path`: one record, full (or per opt_fields). */
export function getOne<K extends NodeType>(path: string, type: K, find: Finder<NodeTypes[K]>): Route {
  return { method: 'GET', path, handler: (req, ctx) => oneResponse(req, ctx, node(type, find(req, ctx))) };
}

/** `GET path`: a collection, compact (or per opt_fields), paginated. */
export function listOf<K extends NodeType>(path: string, type: K, items: Finder<readonly WithGid<K>[]>): Route {
  return { method: 'GET', path, handler: (req, ctx) => listResponse(req, ctx, items(req, ctx), nodeMaker(type)) };
}

/** A write answering 201 with the new record and its location `/<collection>/<gid>`. */
export function created<K extends NodeType>(path: string, type: K, collection: string, make: Finder<WithGid<K>>): Route {
  return {
    method: 'POST',
    path,
    handler: (req, ctx) => {
      const obj = make(req, ctx);
      return createdResponse(req, ctx, node(type, obj), `/${collection}/${obj.gid}`);
    },
  };
}

/** A write on the record `find` names, answering with the record as it now is. */
export function changed<K extends NodeType>(
  method: HttpMethod,
  path: string,
  type: K,
  find: Finder<NodeTypes[K]>,
  change: (obj: NodeTypes[K], req: ApiRequest, ctx: MockContext) => void,
): Route {
  return {
    method,
    path,
    handler: (req, ctx) => {
      const obj = find(req, ctx);
      change(obj, req, ctx);
      return oneResponse(req, ctx, node(type, obj));
    },
  };
}

/** A write answering `{}` (deletions, `addX`/`removeX` actions). */
export function act(method: HttpMethod, path: string, run: (req: ApiRequest, ctx: MockContext) => void): Route {
  return {
    method,
    path,
    handler: (req, ctx) => {
      run(req, ctx);
      return emptyResponse();
    },
  };
}

/** The record of the path parameter `:<field>_gid` in one of the store's maps, or 404. */
export function byGid<T>(field: string, map: (store: WorkManagementStore) => Map<Gid, T>): Finder<T> {
  return (req, ctx) => lookup(map(ctx.store), field, req.params[`${field}_gid`]);
}

/** `find`, then 403 unless the caller may see the record (a service account sees all). */
export function visible<T extends { gid: Gid }>(type: OracleObjectType, find: Finder<T>): Finder<T> {
  return (req, ctx) => {
    const obj = find(req, ctx);
    assertVisible(req, ctx, type, obj.gid);
    return obj;
  };
}

/** `find`, then 403 unless the caller is in the record's workspace. */
export function inWorkspace<T extends { workspace: Gid }>(find: Finder<T>): Finder<T> {
  return (req, ctx) => {
    const obj = find(req, ctx);
    assertInWorkspace(req, ctx, obj.workspace);
    return obj;
  };
}

/** Records under a parent: `items` of what `parent` finds. */
export function under<P, T>(
  parent: Finder<P>,
  items: (store: WorkManagementStore, parent: P, req: ApiRequest, ctx: MockContext) => readonly T[],
): Finder<readonly T[]> {
  return (req, ctx) => items(ctx.store, parent(req, ctx), req, ctx);
}

/** The workspace of the path (`:workspace_gid`), or 404. */
export const workspaceParam: Finder<Workspace> = (req, ctx) => requireWorkspace(ctx, req.params.workspace_gid);

/** The workspace of the path, 403 unless the caller is in it. */
export const memberWorkspaceParam: Finder<Workspace> = (req, ctx) => memberWorkspace(req, ctx, req.params.workspace_gid);

/** The workspace of the query (`?workspace=`), required. */
export const workspaceQuery: Finder<Workspace> = (req, ctx) => requireWorkspace(ctx, req.query.workspace);
