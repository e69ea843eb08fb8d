import { z } from 'zod';
import { setting } from './setting-spec';

/** Rate limits per client and per address, load shedding, and the Redis that replicas share counters through. */
export const rateLimitSettings = {
  rateLimitRequests: setting({
    env: 'RATE_LIMIT_REQUESTS',
    schema: z.coerce.number().int().min(0),
    default: '300000',
    description:
      'Requests each client (API key or OAuth client) may make per window (failed authentications have a budget of their own, `AUTH_FAILURE_LIMIT`); beyond it, 429 with `Retry-After`. Every authenticated `/v1` answer carries truthful `X-RateLimit-Limit`/`-Remaining`/`-Reset`, which the platform reads to pace itself before it is refused. The default (5,000 a second over a minute) is above what one gateway process serves (about 3,000 a second on a small VM), so even a crawl at full speed keeps over 30 % of it and is never paced. `0` turns rate limiting and the headers off.',
  }),
  rateLimitWindowSeconds: setting({
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    schema: z.coerce.number().int().min(1),
    default: '60',
    description: 'Length of the rate-limit window (`X-RateLimit-Reset` counts down to its end).',
  }),
  authFailureLimit: setting({
    env: 'AUTH_FAILURE_LIMIT',
    schema: z.coerce.number().int().min(0),
    default: '30',
    description:
      "Failed authentications each caller's address (as `TRUST_PROXY` makes it) may make per minute: `/v1` requests with a missing or wrong key or token, and `POST /oauth2/token` requests with a wrong client. Beyond it they are answered 429 (`RATE_LIMIT_EXCEEDED`, or `slow_down` at the token endpoint) with `Retry-After` instead of 401; the 401s and 429s carry this budget's `X-RateLimit-*`. Only failures spend it, so a client presenting a valid key or token is never slowed, whatever its address has failed. Counted where `RATE_LIMIT_REQUESTS` is (this gateway, or `REDIS_URL`). `0`: no limit.",
  }),
  maxConcurrentRequests: setting({
    env: 'MAX_CONCURRENT_REQUESTS',
    schema: z.coerce.number().int().min(0),
    default: '64',
    description: 'In-flight `/v1` requests above which the gateway sheds load with 503 and `Retry-After` instead of queueing (`0`: no cap).',
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    schema: z
      .string()
      .regex(/^rediss?:\/\//, { message: 'expected a redis:// or rediss:// URL' })
      .optional(),
    description:
      'Redis that replicas share rate-limit counters through (`redis://:password@host:6379/0`; `rediss://` for TLS), so `RATE_LIMIT_REQUESTS` and `OAUTH_TOKEN_RATE_LIMIT` hold across all of them, and so does the request budget of a `rest` manifest (docs/declarative-sources.md). Unset: counted in this gateway (across its `WEB_CONCURRENCY` workers). Unreachable: each process counts on its own until it answers again (docs/scaling-out.md).',
    secret: true,
  }),
  redisKeyPrefix: setting({
    env: 'REDIS_KEY_PREFIX',
    schema: z.string().min(1).max(100),
    default: 'content-gateway:',
    description: 'Prefix of every key the gateway keeps in `REDIS_URL` (gateways that must not share limits need different prefixes).',
  }),
} as const;
