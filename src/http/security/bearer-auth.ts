import type { Request } from 'express';
import { looksLikeJwt, type AccessTokens } from './access-tokens';
import type { ApiKeyVerifier } from './api-key-verifier';
import { credentialFromAuthorization } from './credential-from-authorization';

export interface AuthenticatedClient {
  /** Which credential matched: `api-key:<index>` or `oauth:<client id>` (never the secret itself). */
  clientId: string;
}

/**
 * The `bearerAuth` security handler of the contract: the configured API keys (compared in
 * constant time) and, when OAuth is on, the access tokens `/oauth2/token` issues. The credential
 * is read from the `Authorization` header only, as `Bearer <key>` or the bare key
 * (`credentialFromAuthorization`); a credential in the query string or a body is never looked at.
 *
 * (This used to be passport-http-bearer's strategy, which also reads `access_token` from the query
 * and the body whenever the header is not exactly `Bearer <token>`: `Bearer<TAB>junk x` plus
 * `?access_token=<key>` was served. It cannot be told not to look there; why it is not back behind
 * a guard: docs/operations.md, "Credentials".)
 */
export function createBearerAuth(keys: ApiKeyVerifier, tokens?: AccessTokens) {
  return async (req: Request): Promise<AuthenticatedClient | false> => {
    const credential = credentialFromAuthorization(req.headers.authorization);
    if (credential === undefined) return false;
    // A JWT-shaped credential is tried as a token first: a remembered token is one map lookup,
    // where the API-key check hashes the whole (long) credential. Keys that happen to look like
    // a JWT are still checked as keys when the token check fails.
    if (tokens && looksLikeJwt(credential)) {
      const clientId = await tokens.verify(credential);
      if (clientId) return { clientId: `oauth:${clientId}` };
    }
    const index = keys.verify(credential);
    return index !== undefined ? { clientId: `api-key:${index}` } : false;
  };
}
