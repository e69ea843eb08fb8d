import type { Config } from './config-schema';
import { ConfigError } from './load-config';

/**
 * For `serve` in production: links (`@odata.nextLink`, `@odata.context`) must not follow whatever
 * `Host` a client sends, so either `PUBLIC_BASE_URL` fixes them or `ALLOWED_HOSTS` limits the hosts
 * they can name. Other commands serve nothing and need neither. Outside production, neither is
 * needed: links follow the request's host, which is what a developer's curl expects.
 */
export function requirePublicHost(config: Pick<Config, 'nodeEnv' | 'publicBaseUrl' | 'allowedHosts'>): void {
  if (config.nodeEnv !== 'production' || config.publicBaseUrl || config.allowedHosts.length > 0) return;
  throw new ConfigError([
    'PUBLIC_BASE_URL or ALLOWED_HOSTS: one is required to serve when NODE_ENV=production (PUBLIC_BASE_URL=https://gateway.example.com fixes the links; ALLOWED_HOSTS=gateway.example.com refuses requests for other hosts)',
  ]);
}
