import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../errors/gateway-error';
import { ApiKeyVerifier } from '../http/security/api-key-verifier';

export const REALM = 'content-gateway console';

/** The key a request presents: `Bearer <key>` (scripts) or HTTP Basic with the key as password (browsers). */
export function presentedKey(req: Request): { key: string; scheme: 'bearer' | 'basic' } | undefined {
  const header = req.headers.authorization ?? '';
  const bearer = /^bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  if (bearer) return { key: bearer, scheme: 'bearer' };
  const basic = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? { key: decoded.slice(colon + 1), scheme: 'basic' } : undefined;
}

/** A stable, non-secret name of the presented credential (the CSRF token is bound to it). */
export const credentialId = (key: string): string => crypto.hash('sha256', `console:${key}`, 'hex');

/** The client id of a valid admin token (an OAuth access token with the console's admin scope), else undefined. */
export type AdminTokens = (token: string) => Promise<string | undefined>;

/**
 * Lets through the console's admins only: the holder of its admin key (compared in constant time;
 * a browser is asked for it with Basic auth), or a script presenting an admin client's token
 * (Bearer). Never a crawl key (`GATEWAY_API_KEY` opens `/v1`, not this) nor a crawler's token.
 */
export function requireAdmin(adminKey: string | undefined, crawlKeys: readonly string[], adminTokens?: AdminTokens) {
  const admin = adminKey === undefined ? undefined : new ApiKeyVerifier([adminKey]);
  const crawl = new ApiKeyVerifier(crawlKeys);
  const isAdmin = async (presented: { key: string; scheme: 'bearer' | 'basic' }): Promise<boolean> => {
    if (crawl.verify(presented.key) !== undefined) return false;
    if (admin?.verify(presented.key) !== undefined) return true;
    return presented.scheme === 'bearer' && adminTokens !== undefined && (await adminTokens(presented.key)) !== undefined;
  };
  return async function adminOnly(req: Request, res: Response, next: NextFunction): Promise<void> {
    const presented = presentedKey(req);
    if (!presented || !(await isAdmin(presented))) {
      res.setHeader('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`);
      next(
        new GatewayError(
          'AUTHENTICATION_FAILED',
          "The console needs its admin key (CONSOLE_ADMIN_KEY: HTTP Basic password, or Bearer) or an admin client's access token (CONSOLE_ADMIN_CLIENTS: Bearer).",
        ),
      );
      return;
    }
    res.locals.consoleCredential = { id: credentialId(presented.key), scheme: presented.scheme };
    next();
  };
}
