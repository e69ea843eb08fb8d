/** A request to the mock's API and its answer, as the route handlers see them. */
import type { Selection } from './opt-fields';
import type { User } from '../model-types';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface Caller {
  token: string;
  user: User;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Relative to the API base, without the query string: `/tasks/123`. */
  path: string;
  params: Record<string, string>;
  /** Query parameters (first value of each); for batch GET actions, the action's `data`. */
  query: Record<string, string>;
  body: unknown;
  caller: Caller;
  /** Absolute API base, e.g. `http://127.0.0.1:4010/api/1.0`. */
  apiBase: string;
  origin: string;
  fields: Selection | undefined;
  inBatch: boolean;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Where a route is and what it needs, its handler aside (what the token rules read). */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  /** The OAuth scope the operation needs when not the one its path names (null: none). */
  scope?: string | null;
}
