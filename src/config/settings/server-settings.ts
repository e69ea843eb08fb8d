import { z } from 'zod';
import { setting } from './setting-spec';
import { port } from './setting-values';

/** The port and interface the gateway listens on, and its logs. */
export const serverSettings = {
  port: setting({ env: 'PORT', schema: port, default: '3000', description: 'TCP port the gateway listens on.' }),
  host: setting({ env: 'HOST', schema: z.string().min(1), default: '0.0.0.0', description: 'Interface the gateway binds to.' }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'pino log level.',
  }),
  logFormat: setting({
    env: 'LOG_FORMAT',
    schema: z.enum(['auto', 'json', 'pretty'], { message: 'expected auto, json or pretty' }),
    default: 'auto',
    description: 'Log lines as JSON (for collectors) or as readable text (pino-pretty); `auto`: readable when the output is a terminal, JSON otherwise.',
  }),
} as const;
