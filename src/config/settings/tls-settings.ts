import { z } from 'zod';
import { setting } from './setting-spec';

/** HTTPS served by the gateway itself. */
export const tlsSettings = {
  tlsCertFile: setting({
    env: 'TLS_CERT_FILE',
    schema: z.string().min(1).optional(),
    description:
      'PEM certificate (chain) file: with `TLS_KEY_FILE`, the gateway serves HTTPS itself (and sends HSTS). Unset: plain HTTP, for running behind a TLS-terminating proxy.',
  }),
  tlsKeyFile: setting({
    env: 'TLS_KEY_FILE',
    schema: z.string().min(1).optional(),
    description: 'PEM private key file for `TLS_CERT_FILE`.',
    secret: true,
  }),
} as const;
