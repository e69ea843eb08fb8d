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

/**
 * Lets through the holder of the console's admin key only: never a crawl key (`GATEWAY_API_KEY`
 * opens `/v1`, not this), compared in constant time. A browser is asked for it (Basic auth).
 */
export function requireAdmin(adminKey: string, crawlKeys: readonly string[]) {
  const admin = new ApiKeyVerifier([adminKey]);
  const crawl = new ApiKeyVerifier(crawlKeys);
  return function adminOnly(req: Request, res: Response, next: NextFunction): void {
    const presented = presentedKey(req);
    if (!presented || crawl.verify(presented.key) !== undefined || admin.verify(presented.key) === undefined) {
      res.setHeader('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`);
      next(new GatewayError('AUTHENTICATION_FAILED', 'The console needs its admin key (CONSOLE_ADMIN_KEY): HTTP Basic password, or Bearer.'));
      return;
    }
    res.locals.consoleCredential = { id: credentialId(presented.key), scheme: presented.scheme };
    next();
  };
}
