import type { Logger } from '../logging/create-logger';
import { OAuthTokenSource, type OAuthClientCredentials } from './oauth-token-source';

/** How a client authenticates: an API key (sent as `Bearer <key>` or bare) or OAuth client credentials. */
export type PlatformAuthConfig = { kind: 'api-key'; key: string; form?: 'bearer' | 'bare' } | ({ kind: 'oauth' } & OAuthClientCredentials);

export interface AuthDeps {
  logger: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The `Authorization` header source of an auth config, and the token source to invalidate on refusal. */
export function authorizationOf(auth: PlatformAuthConfig, deps: AuthDeps): { header: () => Promise<string>; tokens: OAuthTokenSource | undefined } {
  if (auth.kind === 'api-key') {
    const value = auth.form === 'bare' ? auth.key : `Bearer ${auth.key}`;
    return { header: async () => value, tokens: undefined };
  }
  const tokens = new OAuthTokenSource(auth, deps);
  return { header: async () => `Bearer ${await tokens.token()}`, tokens };
}
