import crypto from 'node:crypto';

/**
 * The audience (and issuer) of this deployment's access tokens: `OAUTH_AUDIENCE` when set; else
 * the deployment's public base URL; else a name derived from its `$skiptoken` secret, which every
 * replica on one staging database shares (it is kept there) and no other deployment has. So a
 * second deployment given the same signing key still refuses the first one's tokens, while the
 * replicas and workers of one deployment take each other's. The derivation is an HMAC: the name
 * tells nothing about the secret.
 */
export function tokenAudience(configured: string | undefined, publicBaseUrl: string | undefined, skipTokenSecret: string): string {
  if (configured) return configured;
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  const id = crypto.createHmac('sha256', skipTokenSecret).update('content-gateway oauth audience').digest('base64url').slice(0, 22);
  return `urn:content-gateway:${id}`;
}
