#!/usr/bin/env node
import cluster from 'node:cluster';
import http from 'node:http';
import https from 'node:https';
import { buildProgramFor } from './cli/program';
import type { Runtime } from './cli/runtime';
import { describeFailure } from './cli/describe-failure';
import { CONNECTIONS_CHECKING_INTERVAL_MS, limitConnections } from './lib/limit-connections';
import { serverOptionsOf } from './lib/server-options-of';

/** The only module with process-level effects: environment, listening, signals and exit codes. */
const shutdownHandlers: Array<() => Promise<void>> = [];
/** How long shutdown work may take before the process is ended regardless (a last resort). */
let shutdownBudgetMs = 5_000;

const runtime: Runtime = {
  env: process.env,
  print: (line) => process.stdout.write(`${line}\n`),
  listen: (handler, options) =>
    new Promise((resolve, reject) => {
      const serverOptions = { ...serverOptionsOf(handler), connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS };
      const server = options.tls
        ? https.createServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, handler)
        : http.createServer(serverOptions, handler);
      // Slow, silent and stalled clients cannot hold sockets open, nor open them without bound.
      limitConnections(server, options);
      options.prepare?.(server);
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
  interactive: Boolean(process.stdout.isTTY),
  cluster,
  onReload: (handler) => {
    process.on('SIGHUP', handler);
  },
};

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal} received, shutting down\n`);
  const force = setTimeout(() => {
    process.stderr.write(`shutdown did not finish within ${shutdownBudgetMs} ms; exiting\n`);
    process.exit(1);
  }, shutdownBudgetMs);
  force.unref();
  for (const handler of shutdownHandlers.reverse()) await handler();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

buildProgramFor(runtime, process.argv)
  .then((program) => program.parseAsync(process.argv))
  .catch((error: unknown) => {
    process.stderr.write(`${describeFailure(error, process.env)}\n`);
    process.exit(1);
  });
