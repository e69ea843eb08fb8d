import type { Config } from '../../config/config-schema';
import { AccessTokens } from './access-tokens';
import type { OAuthClient } from './client-secrets';
import { tokenAudience } from './token-audience';

type TokenSettings = Pick<Config, 'oauthSigningKey' | 'oauthAudience' | 'publicBaseUrl' | 'oauthTokenTtlSeconds'>;

/**
 * The access tokens of this deployment's OAuth clients (undefined without clients): what the
 * token endpoint issues and `/v1` and the console verify. Every process of one deployment builds
 * the same from its settings and `$skiptoken` secret, so each takes the others' tokens.
 */
export function accessTokensOf(config: TokenSettings, clients: readonly OAuthClient[], skipTokenSecret: string, now?: () => Date): AccessTokens | undefined {
  if (clients.length === 0) return undefined;
  if (!config.oauthSigningKey) throw new Error('OAUTH_SIGNING_KEY is required when OAUTH_CLIENTS is set');
  const audience = tokenAudience(config.oauthAudience, config.publicBaseUrl, skipTokenSecret);
  return new AccessTokens(config.oauthSigningKey, audience, config.oauthTokenTtlSeconds, clients, now);
}
