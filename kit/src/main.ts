#!/usr/bin/env node
import http from 'node:http';
import { buildKitProgram } from './cli/kit-program';
import { KitUsageError } from './cli/kit-usage-error';
import type { KitRuntime } from './cli/kit-runtime';

/** The kit's only module with process-level effects: environment, listening, signals and exit codes. */
const shutdownHandlers: Array<() => Promise<void>> = [];
let shutdownBudgetMs = 5_000;

const runtime: KitRuntime = {
  env: process.env,
  print: (line) => process.stdout.write(`${line}\n`),
  listen: (handler, options) =>
    new Promise((resolve, reject) => {
      const server = http.createServer(
        { headersTimeout: options.headersTimeoutMs, requestTimeout: options.requestTimeoutMs, keepAliveTimeout: options.keepAliveTimeoutMs },
        handler,
      );
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve(server));
    }),
  onShutdown: (handler, budgetMs = 0) => {
    shutdownHandlers.push(handler);
    shutdownBudgetMs += budgetMs;
  },
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal} received, shutting down\n`);
  setTimeout(() => process.exit(1), shutdownBudgetMs).unref();
  for (const handler of shutdownHandlers.reverse()) await handler();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

buildKitProgram(runtime)
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    // One line; where it came from only when asked for (a database error's stack says nothing a user can act on).
    if (error instanceof KitUsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(1);
    }
    const debug = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
    const message = error instanceof Error ? (debug ? (error.stack ?? error.message) : `error: ${error.message}`) : `error: ${String(error)}`;
    process.stderr.write(`${message}${debug ? '' : '\n(set LOG_LEVEL=debug to see where it came from)'}\n`);
    process.exit(1);
  });
