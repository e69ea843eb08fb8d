import type { Cluster, Worker } from 'node:cluster';
import type { Logger } from '../logging/create-logger';

/** A worker that dies sooner than this after it started counts as a crash loop: replacements back off. */
const STEADY_MS = 10_000;
const MAX_BACKOFF_MS = 10_000;

/**
 * The cluster primary's side of `serve` with `WEB_CONCURRENCY` > 1: starts the serving workers
 * (each runs `serve` again, sees it is a worker, and listens on the shared port), replaces a
 * worker that dies (at once, or backing off up to 10 s while they keep dying young), restarts
 * them one at a time on request (a new worker listens before the old one drains: no moment
 * without a listener), and stops them on shutdown by sending each SIGTERM, which drains it
 * (`SHUTDOWN_GRACE_MS`), and waiting for them to exit.
 */
export class WorkerSupervisor {
  private readonly retiring = new Set<Worker>();
  private readonly startedAt = new WeakMap<Worker, number>();
  private stopping = false;
  private restarting: Promise<void> | undefined;
  private quickDeaths = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly count: number,
    private readonly env: Record<string, string>,
    private readonly logger: Logger,
  ) {
    cluster.on('exit', (worker, code, signal) => this.onExit(worker, code, signal));
  }

  /** Starts the workers; resolves with the port once every one listens, rejects if one dies first. */
  async start(): Promise<number> {
    try {
      const ports = await Promise.all(Array.from({ length: this.count }, () => this.fork()));
      return ports[0] as number;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Replaces every worker, one after the other; a second request while one runs joins it. */
  rollingRestart(): Promise<void> {
    this.restarting ??= this.restartAll().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  /** SIGTERM to every worker (each drains its requests), resolved once all have exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers().map((worker) => this.retire(worker)));
  }

  private workers(): Worker[] {
    return Object.values(this.cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !this.retiring.has(w));
  }

  private fork(): Promise<number> {
    const worker = this.cluster.fork(this.env);
    this.startedAt.set(worker, Date.now());
    // A message for a worker whose channel just closed (a metrics or rate-limit answer arriving as
    // it leaves) fails with ERR_IPC_CHANNEL_CLOSED as an 'error' event: logged, not a crash of the primary.
    worker.on('error', (error: Error) => this.logger.warn({ err: error, worker: worker.id }, 'could not reach a serving worker (it is leaving)'));
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`a serving worker exited (code ${code}) before it listened`));
      worker.once('exit', onExit);
      worker.once('listening', (address: { port: number }) => {
        worker.off('exit', onExit);
        this.logger.info({ worker: worker.id, pid: worker.process.pid, port: address.port }, 'serving worker listening');
        resolve(address.port);
      });
    });
  }

  private retire(worker: Worker): Promise<void> {
    this.retiring.add(worker);
    return new Promise((resolve) => {
      if (worker.isDead()) return resolve();
      worker.once('exit', () => resolve());
      worker.process.kill('SIGTERM');
    });
  }

  private async restartAll(): Promise<void> {
    const old = this.workers();
    this.logger.info({ workers: old.length }, 'rolling restart: replacing the serving workers one at a time');
    for (const worker of old) {
      if (this.stopping) return;
      try {
        await this.fork();
      } catch (error) {
        this.logger.error({ err: error }, 'rolling restart stopped: a new worker did not start (the old ones keep serving)');
        return;
      }
      await this.retire(worker);
    }
    this.logger.info({ workers: old.length }, 'rolling restart finished');
  }

  private onExit(worker: Worker, code: number | null, signal: string | null): void {
    if (this.retiring.delete(worker) || this.stopping) return;
    const lived = Date.now() - (this.startedAt.get(worker) ?? 0);
    this.quickDeaths = lived < STEADY_MS ? this.quickDeaths + 1 : 0;
    const delayMs = this.quickDeaths === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 250 * 2 ** (this.quickDeaths - 1));
    this.logger.error({ worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: delayMs }, 'serving worker died; starting a replacement');
    setTimeout(() => {
      if (!this.stopping) this.fork().catch((error: unknown) => this.logger.error({ err: error }, 'replacement worker did not start'));
    }, delayMs).unref();
  }
}
