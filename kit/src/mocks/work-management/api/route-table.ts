/**
 * The mock's routes as data: `{method, path, handler}`. Express serves them (create-mock-server)
 * and the batch endpoint runs the same handlers for its actions, without a second HTTP hop.
 */
import { ApiError, badRequest, noRoute } from './api-error';
import type { ApiRequest, ApiResponse, RouteSpec } from './api-request';
import type { Handler, RouteMatcher } from '../mock-context';

export type { ApiRequest, ApiResponse, Caller, HttpMethod, RouteSpec } from './api-request';

export type { Handler } from '../mock-context';

export interface Route extends RouteSpec {
  handler: Handler;
}

interface Compiled extends Route {
  segments: string[];
  literals: number;
}

export class RouteTable implements RouteMatcher {
  private readonly routes: Compiled[] = [];

  add(routes: readonly Route[]): this {
    for (const r of routes) {
      const segments = r.path.split('/').filter(Boolean);
      this.routes.push({ ...r, segments, literals: segments.filter((s) => !s.startsWith(':')).length });
    }
    // More literal segments win: `/users/me/...` style paths before `/users/:user/...`.
    this.routes.sort((a, b) => b.literals - a.literals);
    return this;
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } {
    const parts = path.split('/').filter(Boolean);
    for (const r of this.routes) {
      if (r.method !== method || r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = r.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) params[seg.slice(1)] = safeDecode(part);
        else if (seg !== part) {
          ok = false;
          break;
        }
      }
      if (ok) return { route: r, params };
    }
    throw noRoute();
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw badRequest('Could not parse the request path');
  }
}

// ----------------------------------------------------------------------------------------------
// Small helpers shared by the route files
// ----------------------------------------------------------------------------------------------

export function ok(data: unknown, extra: Record<string, unknown> = {}): ApiResponse {
  return { status: 200, body: { data, ...extra } };
}

export function created(data: unknown, location: string): ApiResponse {
  return { status: 201, body: { data }, headers: { location } };
}

/** The `data` member of a write body; 400 when the envelope is missing or has foreign members. */
export function bodyData(req: ApiRequest): Record<string, unknown> {
  const body = req.body;
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body as object).length === 0)) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('Could not parse request data, invalid JSON');
  const unknown = Object.keys(body as object).filter((k) => k !== 'data' && k !== 'options');
  if (unknown.length > 0) throw badRequest(`Unrecognized request field '${unknown[0]}'. Allowed fields are: data, options`);
  const data = (body as { data?: unknown }).data;
  if (data === undefined) return {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest('data: Value is not an object');
  return data as Record<string, unknown>;
}

export function queryBool(req: ApiRequest, name: string): boolean | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`${name}: Not a boolean: ${v}`);
}

export function queryTime(req: ApiRequest, name: string): number | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (name === 'completed_since' && v === 'now') return Number.POSITIVE_INFINITY;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw badRequest(`${name}: Not a valid date-time: ${v}`);
  return t;
}

/** A gid list given as an array or a comma-separated string. */
export function gidList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((v) => String(v));
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  throw new ApiError(400, `${field}: Not a list of gids`);
}

export function stringField(data: Record<string, unknown>, field: string): string | undefined {
  const v = data[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest(`${field}: Not a string`);
  return String(v);
}
