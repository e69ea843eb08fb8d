import { z } from 'zod';
import { setting } from './setting-spec';
import { autoOrCount } from './setting-values';

/** The serving processes: how many workers, and the Prometheus metrics they expose. */
export const processSettings = {
  webConcurrency: setting({
    env: 'WEB_CONCURRENCY',
    schema: autoOrCount(),
    default: 'auto',
    description:
      'Worker processes that serve (one event loop each; a primary process migrates, then starts and supervises them). `auto`: one per CPU with `NODE_ENV=production`, else 1 (a single process, no primary). Limits hold across workers: the rate limit is counted in the primary (or in `REDIS_URL`), `MAX_CONCURRENT_REQUESTS` is divided between them.',
  }),
  metricsToken: setting({
    env: 'METRICS_TOKEN',
    schema: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    description: 'Bearer token that `GET /metrics` (Prometheus) requires. Unset: `/metrics` is not served.',
    secret: true,
  }),
} as const;
