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

export interface LoggerOptions {
  level: string;
  /** Where the lines go (default stdout). */
  destination?: pino.DestinationStream;
  /** Readable lines (pino-pretty, colours when `destination` is a terminal) instead of JSON. */
  pretty?: boolean;
}

/**
 * pino-pretty as a stream in this thread (not a transport's worker), so a line is written before
 * the next statement runs and never interleaves out of order with what the command prints.
 * Loaded only when asked for.
 */
function prettyStream(destination: pino.DestinationStream | undefined): pino.DestinationStream {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use: JSON logging never pays for it
  const pretty = require('pino-pretty') as (options: Record<string, unknown>) => pino.DestinationStream;
  return pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', ...(destination ? { destination } : {}) });
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.pretty ? prettyStream(options.destination) : options.destination,
  );
}

/** Whether a command's logs should be readable text: LOG_FORMAT, or with `auto` whether the output is a terminal. */
export function wantsPrettyLogs(format: 'auto' | 'json' | 'pretty', interactive: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && interactive);
}
