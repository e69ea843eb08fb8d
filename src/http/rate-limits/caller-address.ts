import type { Request } from 'express';

/**
 * The address a per-address budget counts against: Express's `req.ip`, which follows the app's
 * `trust proxy` (`TRUST_PROXY`): `X-Forwarded-For` only from a trusted proxy, else the peer.
 */
export function callerAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
