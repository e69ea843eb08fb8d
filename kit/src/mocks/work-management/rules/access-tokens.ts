/**
 * Personal access tokens and OAuth 2.0 tokens (seed "Authentication": two schemes are accepted;
 * reference §1 and §3):
 * - both are bearer tokens, sent as `Authorization: Bearer <token>`, and both see what their user
 *   sees (a service account sees everything);
 * - a personal access token never expires and may call every endpoint; the audit log accepts only
 *   a service account's personal access token (rules/audit-log.ts);
 * - an OAuth token carries scopes `<resource>:read|write|delete` (`default` means full access):
 *   each operation needs the scope of the collection its path names (`GET /projects/{gid}/tasks`
 *   → `tasks:read`, `POST /tasks/{gid}/duplicate` → `tasks:write`, `DELETE /stories/{gid}` →
 *   `stories:delete`) unless the route names another; without it → 403. The batch request needs
 *   none, each action needs its own;
 * - an OAuth token expires (one hour by default): then every request, a batch included, is 401
 *   with the reference's "bearer token has expired" message;
 * - tokens are opaque: the kind is recorded when the token is issued, never read from its text.
 */
import crypto from 'node:crypto';
import { ApiError } from '../api/api-error';
import type { HttpMethod, RouteSpec } from '../api/api-request';
import type { Gid } from '../model-types';

export type TokenKind = 'personal_access_token' | 'oauth';

export interface TokenGrant {
  user: Gid;
  kind: TokenKind;
  /** OAuth scopes; a personal access token has every scope. */
  scopes: readonly string[];
  /** Clock time the token stops working, or null (personal access tokens). */
  expiresAt: number | null;
}

export const FULL_ACCESS_SCOPE = 'default';
export const OAUTH_TOKEN_TTL_MS = 3_600_000;
export const EXPIRED_TOKEN_MESSAGE =
  'The bearer token has expired. If you have a refresh token, please use it to request a new bearer token, otherwise allow the user to re-authenticate.';
const SCOPE = /^([a-z][a-z_]*):(read|write|delete)$/;

/** Bearer token → user gid (a Map, as the rest of the mock reads it), plus each token's grant. */
export class TokenRegistry extends Map<string, Gid> {
  private readonly grants = new Map<string, TokenGrant>();

  constructor(
    private readonly now: () => number,
    entries: ReadonlyArray<readonly [string, Gid]> = [],
  ) {
    super();
    for (const [token, user] of entries) this.set(token, user);
  }

  /** A token set directly (the default token, `tokenFor`) is its user's personal access token. */
  override set(token: string, user: Gid): this {
    super.set(token, user);
    if (!this.grants.has(token)) this.grants.set(token, { user, kind: 'personal_access_token', scopes: [FULL_ACCESS_SCOPE], expiresAt: null });
    return this;
  }

  override delete(token: string): boolean {
    this.grants.delete(token);
    return super.delete(token);
  }

  grantOf(token: string): TokenGrant | undefined {
    return this.grants.get(token);
  }

  issueOAuthToken(user: Gid, options: { scopes?: readonly string[]; ttlMs?: number } = {}): { token: string; grant: TokenGrant } {
    const scopes = options.scopes && options.scopes.length > 0 ? [...new Set(options.scopes)] : [FULL_ACCESS_SCOPE];
    for (const s of scopes)
      if (s !== FULL_ACCESS_SCOPE && !SCOPE.test(s))
        throw new ApiError(400, `scopes: ${s} is not a scope (<resource>:read|write|delete or ${FULL_ACCESS_SCOPE})`);
    const ttlMs = options.ttlMs ?? OAUTH_TOKEN_TTL_MS;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new ApiError(400, 'expires_in: a positive number of seconds');
    const token = `wm-oauth-${crypto.randomBytes(16).toString('hex')}`;
    const grant: TokenGrant = { user, kind: 'oauth', scopes, expiresAt: this.now() + ttlMs };
    this.grants.set(token, grant);
    super.set(token, user);
    return { token, grant };
  }

  /** 401 for an expired OAuth token (checked before routing, so a whole batch fails). */
  assertCurrent(token: string): void {
    const grant = this.grants.get(token);
    if (grant?.expiresAt !== null && grant?.expiresAt !== undefined && this.now() >= grant.expiresAt) throw new ApiError(401, EXPIRED_TOKEN_MESSAGE);
  }

  /** 403 when an OAuth token lacks the scope the route needs. */
  assertScope(token: string, route: RouteSpec): void {
    const grant = this.grants.get(token);
    if (!grant || grant.kind !== 'oauth' || grant.scopes.includes(FULL_ACCESS_SCOPE)) return;
    const needed = requiredScope(route);
    if (needed && !grant.scopes.includes(needed)) throw new ApiError(403, `This request needs the OAuth scope ${needed}, which the token was not granted.`);
  }
}

const ACTION_SEGMENTS = new Set(['duplicate']);

/**
 * The scope an operation needs: the route's own, else `<collection>:<read|write|delete>` where the
 * collection is the last lower-case literal at the start of the path or right after an id
 * (`/workspaces/{gid}/tasks/search` → tasks, `/exports/graph` → exports); undefined for `/batch`.
 */
export function requiredScope(route: RouteSpec): string | undefined {
  if (route.scope !== undefined) return route.scope ?? undefined;
  const segments = route.path.split('/').filter(Boolean);
  if (segments[0] === 'batch') return undefined;
  let resource: string | undefined;
  segments.forEach((seg, i) => {
    const afterId = i === 0 || (segments[i - 1] ?? '').startsWith(':');
    if (afterId && /^[a-z][a-z_]*$/.test(seg) && !ACTION_SEGMENTS.has(seg)) resource = seg;
  });
  return resource ? `${resource}:${ACTION_OF[route.method]}` : undefined;
}

const ACTION_OF: Record<HttpMethod, 'read' | 'write' | 'delete'> = { GET: 'read', POST: 'write', PUT: 'write', PATCH: 'write', DELETE: 'delete' };
