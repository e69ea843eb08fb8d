import type { Request } from 'express';

/**
 * The public base URL links are built from: `PUBLIC_BASE_URL` when set, else the request's own
 * scheme and host (which honour `X-Forwarded-*` only when `TRUST_PROXY` says the proxy is trusted).
 */
export function baseUrl(req: Request, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  const host = req.host && /^[A-Za-z0-9.\-:[\]]+$/.test(req.host) ? req.host : 'localhost';
  return `${req.protocol}://${host}`;
}

/** `<base>/v1/$metadata#<set>`: informational, as the platform's own examples show it. */
export function odataContext(base: string, set: string): string {
  return `${base}/v1/$metadata#${set}`;
}
