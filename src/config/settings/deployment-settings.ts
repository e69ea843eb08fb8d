import { z } from 'zod';
import { setting } from './setting-spec';
import { list, publicUrl } from './setting-values';

/** A DNS name (a trailing dot allowed), an IPv4 address, or an IPv6 address in brackets; no port. */
const HOST_NAME = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)$/;

/** What a deployment must say about itself: its API keys, its environment, the address it is reached at. */
export const deploymentSettings = {
  apiKeys: setting({
    env: 'GATEWAY_API_KEY',
    schema: list,
    description:
      'API key(s) the platform sends in `Authorization` (bare or `Bearer`). Comma-separate several keys to rotate without downtime. Unset outside production: a random key is generated once and written to `<data dir>/dev-api-key`.',
    secret: true,
  }),
  nodeEnv: setting({
    env: 'NODE_ENV',
    schema: z.enum(['development', 'production', 'test']),
    default: 'development',
    description:
      'In `production` the gateway refuses to start without `GATEWAY_API_KEY`, or without `PUBLIC_BASE_URL` or `ALLOWED_HOSTS` (links must not follow whatever `Host` a client sends), and never loads demo content.',
  }),
  publicBaseUrl: setting({
    env: 'PUBLIC_BASE_URL',
    schema: publicUrl.optional(),
    description:
      "Public base URL of the gateway (`https://gateway.example.com`), used for `@odata.nextLink` and `@odata.context`. Unset: derived from each request's host (see `TRUST_PROXY`), which in production must then be one of `ALLOWED_HOSTS`.",
  }),
  allowedHosts: setting({
    env: 'ALLOWED_HOSTS',
    schema: list.refine((hosts) => hosts.every((h) => HOST_NAME.test(h)), {
      message: 'expected comma-separated host names without ports, such as gateway.example.com,10.0.0.5',
    }),
    description:
      'Host names the gateway answers to, comma-separated (`gateway.example.com`; any port, any case). The host of `PUBLIC_BASE_URL` is allowed too. A request for another host (its `Host` header, or `X-Forwarded-Host` from a trusted proxy) is refused with 400, except `/healthz` and `/readyz`. Unset: any host, and links follow it (convenient in development; in production set this or `PUBLIC_BASE_URL`).',
  }),
  trustProxy: setting({
    env: 'TRUST_PROXY',
    schema: z.string().min(1),
    default: 'false',
    description:
      "Express `trust proxy` value: `false`, `true`, a hop count, or comma-separated addresses/subnets. Lets links carry the proxy's `X-Forwarded-Proto`/`-Host`.",
  }),
} as const;
