import { z } from 'zod';
import { setting } from './setting-spec';
import { bool } from './setting-values';

/** The operator console (docs/console.md): off unless turned on, and only with its own admin key. */
export const consoleSettings = {
  consoleEnabled: setting({
    env: 'CONSOLE_ENABLED',
    schema: bool,
    default: 'false',
    description:
      'Serve the operator console at `/console` (its pages) and `/console/api` (their JSON), for the holder of `CONSOLE_ADMIN_KEY` only (docs/console.md). Off: neither is served nor loaded.',
  }),
  consoleAdminKey: setting({
    env: 'CONSOLE_ADMIN_KEY',
    schema: z.string().min(1).optional(),
    description:
      "The console's own credential (required with `CONSOLE_ENABLED`; at least 32 characters with `NODE_ENV=production`, and never one of `GATEWAY_API_KEY`'s): the password of HTTP Basic auth in a browser, or `Authorization: Bearer <key>` for scripts.",
    secret: true,
  }),
} as const;
