import { isDatabaseUnavailable } from '../lib/database-unavailable';
import { UsageError } from './usage-error';

/** The fields Node puts on a failed `listen` (EADDRINUSE, EACCES). */
interface SystemError extends Error {
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
}

const DEBUG_LEVELS = new Set(['debug', 'trace']);

/** One line for an ordinary mistake, naming what to change; undefined for anything else. */
function ordinary(error: Error, env: Record<string, string | undefined>): string | undefined {
  if (error instanceof UsageError) return `error: ${error.message}`;
  // The platform's answer, with its status, code and URL: what to fix is in it, not in a stack. By
  // name (PlatformAuthError, PlatformGoneError…): `serve` must not load the platform clients.
  if (/^Platform[A-Za-z]*Error$/.test(error.name)) return `error: ${error.message}`;
  const e = error as SystemError;
  if (e.syscall === 'listen' && e.code === 'EADDRINUSE')
    return `error: ${e.address ?? env.HOST ?? ''}:${e.port ?? env.PORT ?? ''} is already in use: set PORT (or HOST) to a free one.`;
  if (e.syscall === 'listen' && e.code === 'EACCES')
    return `error: no permission to listen on port ${e.port ?? env.PORT ?? ''}: set PORT to one above 1023 (or run with the capability).`;
  if (isDatabaseUnavailable(error)) {
    const which = env.DATABASE_URL ? 'the Postgres staging database (DATABASE_URL)' : 'the staging database';
    return `error: ${which} cannot be reached: ${error.message}. Check that it is running and DATABASE_URL is right.`;
  }
  return undefined;
}

/**
 * What the command line prints when a command fails: the configuration's own message, or one line
 * naming the failure and what to change; the stack only with LOG_LEVEL=debug (or trace).
 */
export function describeFailure(error: unknown, env: Record<string, string | undefined>): string {
  // By name: the process entry must not load the settings schema just to print a failure.
  if (error instanceof Error && error.name === 'ConfigError') return error.message;
  if (!(error instanceof Error)) return `error: ${String(error)}`;
  if (DEBUG_LEVELS.has(env.LOG_LEVEL ?? '')) return error.stack ?? error.message;
  return ordinary(error, env) ?? `error: ${error.message}\n(set LOG_LEVEL=debug to see where it came from)`;
}
