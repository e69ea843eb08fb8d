import os from 'node:os';
import type { Cluster } from 'node:cluster';
import type { Command } from 'commander';
import type { Config } from '../config/config-schema';
import { loadConfig } from '../config/load-config';
import { requirePublicHost } from '../config/require-public-host';
import { keepClusterCounts } from '../http/rate-limits/rate-limit-store';
import { resolveWebConcurrency } from '../lib/web-concurrency';
import { createLogger, wantsPrettyLogs, type Logger } from '../logging/create-logger';
import { gatherMetricsForWorkers } from './cluster-metrics';
import { prepareToServe, type PreparedStaging } from './prepare-to-serve';
import type { Runtime } from './runtime';
import { serveApp } from './serve-app';
import { WorkerSupervisor } from './worker-supervisor';

const DESCRIPTION = `Run the gateway: migrate the staging database, load the demo corpus into an empty embedded database, and serve /v1. With NODE_ENV=production it needs GATEWAY_API_KEY (every key at least 32 characters), and PUBLIC_BASE_URL or ALLOWED_HOSTS (links must not follow whatever Host a client sends).

WEB_CONCURRENCY (default: one per CPU with NODE_ENV=production, else 1) serving worker processes share the port: a primary process migrates and prepares staging, then starts them, replaces one that dies, restarts them one at a time on SIGHUP (the next listens before the last drains), and on SIGTERM drains them all. See docs/scaling-out.md.`;

function announce(runtime: Runtime, config: Config, port: number, prepared: PreparedStaging, workers: number): void {
  const scheme = config.tlsCertFile ? 'https' : 'http';
  runtime.print(`Content gateway listening on ${scheme}://localhost:${port}/v1/files${workers > 1 ? ` (${workers} workers)` : ''}`);
  if (prepared.generatedAt) runtime.print(`No GATEWAY_API_KEY set: using the development key in ${prepared.generatedAt}`);
}

/** The primary of a multi-worker gateway: prepares staging once, then supervises the workers. */
async function superviseWorkers(runtime: Runtime, cluster: Cluster, config: Config, logger: Logger, workers: number): Promise<void> {
  const prepared = await prepareToServe(config, logger, { worker: false, workers: 1 });
  // The primary serves nothing: the workers open staging themselves.
  await prepared.staging.close();
  if (!config.redisUrl) keepClusterCounts();
  gatherMetricsForWorkers(cluster);
  const supervisor = new WorkerSupervisor(cluster, workers, { WEB_CONCURRENCY: String(workers) }, logger);
  runtime.onShutdown(() => supervisor.stop(), config.shutdownGraceMs + 5_000);
  const port = await supervisor.start();
  logger.info({ port, workers }, 'gateway listening with serving workers');
  announce(runtime, config, port, prepared, workers);
  runtime.onReload?.(() => void supervisor.rollingRestart());
}

export function registerServeCommand(program: Command, runtime: Runtime): void {
  program
    .command('serve')
    .description(DESCRIPTION)
    .action(async function serve() {
      const config = loadConfig(runtime.env);
      requirePublicHost(config);
      const logger = createLogger({ level: config.logLevel, pretty: wantsPrettyLogs(config.logFormat, runtime.interactive) });
      const workers = resolveWebConcurrency(config.webConcurrency, config.nodeEnv === 'production', os.availableParallelism());
      const cluster = runtime.cluster;
      if (cluster?.isWorker) {
        // Every log line of a worker says which one it is.
        const workerLogger = logger.child({ worker: cluster.worker?.id });
        await serveApp(runtime, config, workerLogger, await prepareToServe(config, workerLogger, { worker: true, workers }), workers);
        return;
      }
      if (cluster && workers > 1) return superviseWorkers(runtime, cluster, config, logger, workers);
      const prepared = await prepareToServe(config, logger, { worker: false, workers: 1 });
      announce(runtime, config, await serveApp(runtime, config, logger, prepared, 1), prepared, 1);
    });
}
