import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';

/** Probes that name no host of their own: load balancers and orchestrators call them by address. */
const PROBES = new Set(['/healthz', '/readyz']);

/** A host as compared: lower case, without a trailing dot. */
const normalize = (host: string): string => host.toLowerCase().replace(/\.$/, '');

/**
 * Refuses (400, in the envelope) a request whose host is not one of `hosts` (`ALLOWED_HOSTS`),
 * before anything reads it: links are built from the request's host when `PUBLIC_BASE_URL` is
 * unset, so `Host: evil.example` would otherwise send the crawler's next page there. The host is
 * `req.hostname`: the `Host` header, or `X-Forwarded-Host` when `TRUST_PROXY` trusts the proxy
 * (what links are built from), without its port.
 */
export function allowedHosts(hosts: readonly string[]) {
  const allowed = new Set(hosts.map(normalize));
  return function foreignHost(req: Request, _res: Response, next: NextFunction): void {
    const host = req.hostname;
    if ((host && allowed.has(normalize(host))) || PROBES.has(req.path)) next();
    else next(new GatewayError('INPUT_VALIDATION_FAILED', 'The request is for a host this gateway does not serve (see ALLOWED_HOSTS).'));
  };
}
