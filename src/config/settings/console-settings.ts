import { z } from 'zod';
import { setting } from './setting-spec';
import { bool, list } from './setting-values';

/** The operator console (docs/console.md): off unless turned on, and only with its own credentials (an admin key, admin OAuth clients). */
export const consoleSettings = {
  consoleEnabled: setting({
    env: 'CONSOLE_ENABLED',
    schema: bool,
    default: 'false',
    description:
      'Serve the operator console at `/console` (its pages) and `/console/api` (their JSON), for the holder of `CONSOLE_ADMIN_KEY` or an admin OAuth client (`CONSOLE_ADMIN_CLIENTS`) only (docs/console.md). Off: neither is served nor loaded.',
  }),
  consoleAdminKey: setting({
    env: 'CONSOLE_ADMIN_KEY',
    schema: z.string().min(1).optional(),
    description:
      "The console's own credential (with `CONSOLE_ENABLED`, this or `CONSOLE_ADMIN_CLIENTS` is required; at least 32 characters with `NODE_ENV=production`, and never one of `GATEWAY_API_KEY`'s): the password of HTTP Basic auth in a browser, or `Authorization: Bearer <key>` for scripts.",
    secret: true,
  }),
  consoleAdminClients: setting({
    env: 'CONSOLE_ADMIN_CLIENTS',
    schema: list,
    description:
      "OAuth clients (ids of `OAUTH_CLIENTS` entries, comma-separated) that are the console's admins instead of crawlers: their tokens carry the `console:admin` scope, open `/console` and `/console/api` (`Authorization: Bearer <token>`) and nothing under `/v1`. With `CONSOLE_ENABLED`, this or `CONSOLE_ADMIN_KEY` is required.",
  }),
} as const;
