import express, { type Request, type Response, type Router } from 'express';
import { verifyClientSecret, type OAuthClient } from './security/client-secrets';
import type { AccessTokens } from './security/access-tokens';

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'unauthorized_client';

function oauthError(res: Response, status: number, error: OAuthErrorCode, description: string): void {
  if (error === 'invalid_client') res.set('WWW-Authenticate', 'Basic realm="content-gateway", charset="UTF-8"');
  res.status(status).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json({ error, error_description: description });
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-urlencoded id and secret) or the body. */
function clientCredentials(req: Request): { id: string; secret: string; via: 'basic' | 'body' } | { problem: string } | undefined {
  const header = req.headers.authorization;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const inBody = typeof body.client_id === 'string' || typeof body.client_secret === 'string';
  if (header && /^basic\s/i.test(header)) {
    if (inBody) return { problem: 'use either HTTP Basic or body credentials, not both' };
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { problem: 'malformed Basic credentials' };
    try {
      return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')), via: 'basic' };
    } catch {
      return { problem: 'malformed Basic credentials' };
    }
  }
  if (typeof body.client_id === 'string' && typeof body.client_secret === 'string') return { id: body.client_id, secret: body.client_secret, via: 'body' };
  return undefined;
}

/**
 * `POST /oauth2/token`: the client-credentials grant (RFC 6749 §4.4). The platform tries HTTP
 * Basic and body credentials, so both work. Errors use RFC 6749's JSON form, not the gateway
 * envelope: OAuth clients parse these. Secrets are compared in constant time and never logged.
 */
export function oauthTokenRoute(clients: readonly OAuthClient[], tokens: AccessTokens): Router {
  const byId = new Map(clients.map((c) => [c.id, c]));
  // A fixed hash to verify against when the client is unknown, so timing does not reveal which ids exist.
  const decoy = clients[0]?.secretHash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const router = express.Router();
  router.post('/oauth2/token', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20, type: () => true }), async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      res.status(415).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'Content-Type must be application/x-www-form-urlencoded' });
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const credentials = clientCredentials(req);
    if (credentials && 'problem' in credentials) return oauthError(res, 400, 'invalid_request', credentials.problem);
    if (!credentials) return oauthError(res, 401, 'invalid_client', 'client authentication is required (HTTP Basic or client_id/client_secret)');
    const client = byId.get(credentials.id);
    const valid = await verifyClientSecret(credentials.secret, client?.secretHash ?? decoy);
    if (!client || !valid) return oauthError(res, 401, 'invalid_client', 'unknown client or wrong secret');
    if (body.grant_type === undefined) return oauthError(res, 400, 'invalid_request', 'grant_type is required');
    if (body.grant_type !== 'client_credentials') return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
    const accessToken = await tokens.issue(client.id);
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json({ access_token: accessToken, token_type: 'Bearer', expires_in: tokens.ttlSeconds });
  });
  router.all('/oauth2/token', (_req, res) => {
    res.set('Allow', 'POST');
    oauthError(res, 405, 'invalid_request', 'use POST');
  });
  return router;
}
