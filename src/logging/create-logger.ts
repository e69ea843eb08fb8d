import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line, should an object holding them be logged. Credentials
 * arrive in the `Authorization` header only; URLs are redacted before they are logged
 * (`SecretRedactor`).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'authorization',
  'apiKey',
  'apiKeys',
  'password',
  'secret',
  'token',
];

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
