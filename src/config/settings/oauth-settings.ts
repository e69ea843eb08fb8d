import { z } from 'zod';
import { setting } from './setting-spec';
import { autoOrCount, list } from './setting-values';

/** OAuth 2.0 client credentials: the clients, the tokens issued to them, and how fast they may ask. */
export const oauthSettings = {
  oauthClients: setting({
    env: 'OAUTH_CLIENTS',
    schema: list,
    description:
      'OAuth 2.0 client-credentials clients, comma-separated `client_id:secret_hash` (hash with `content-gateway hash-secret <client-id>`). Set to enable `POST /oauth2/token`; API keys keep working.',
    secret: true,
  }),
  oauthSigningKey: setting({
    env: 'OAUTH_SIGNING_KEY',
    schema: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    description: 'HMAC key (HS256) that signs issued access tokens; required with `OAUTH_CLIENTS`. Every replica needs the same key.',
    secret: true,
  }),
  oauthTokenTtlSeconds: setting({
    env: 'OAUTH_TOKEN_TTL_SECONDS',
    schema: z.coerce.number().int().min(60).max(86_400),
    default: '3600',
    description: 'Lifetime of issued access tokens (`expires_in`).',
  }),
  oauthAudience: setting({
    env: 'OAUTH_AUDIENCE',
    schema: z.string().min(1).optional(),
    description:
      "Audience (`aud`) and issuer (`iss`) of issued tokens; tokens for another audience are refused. Unset: this deployment's own, so another deployment given the same `OAUTH_SIGNING_KEY` takes none of its tokens: `PUBLIC_BASE_URL` when set, else a name derived from the `$skiptoken` secret (which every replica on one database shares). Set the same value on deployments that must take each other's tokens.",
  }),
  oauthTokenRateLimit: setting({
    env: 'OAUTH_TOKEN_RATE_LIMIT',
    schema: z.coerce.number().int().min(0),
    default: '30',
    description:
      "`POST /oauth2/token` requests each caller's address, and each client id, may make per minute; beyond it, 429 (`slow_down`) with `Retry-After`, before any secret is checked. The platform asks for a token about once an hour. `0`: no limit.",
  }),
  oauthTokenConcurrency: setting({
    env: 'OAUTH_TOKEN_CONCURRENCY',
    schema: autoOrCount(),
    default: 'auto',
    description:
      'Client secrets checked at once (scrypt: a CPU-bound job on the thread pool that also reads blobs for downloads); `auto`: one less than the CPUs, at least 1 and at most 2. Up to 64 more token requests wait up to a second for their turn; what finds none is answered 503 (`temporarily_unavailable`) with `Retry-After`, so a flood of token requests never starves serving.',
  }),
} as const;
