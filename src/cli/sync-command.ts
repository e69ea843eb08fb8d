import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { adapterFactories, findAdapterFactory } from '../adapters/adapter-registry';
import type { Adapter } from '../adapters/adapter';
import type { AdapterFactory } from '../adapters/adapter-factory';
import { configuredAdapters } from '../adapters/configured-adapters';
import { adapterSettingsHelp } from '../adapters/adapter-settings-table';
import type { Config } from '../config/config-schema';
import { loadConfig } from '../config/load-config';
import { isAbortError } from '../lib/abort-error';
import { createLogger, wantsPrettyLogs, type Logger } from '../logging/create-logger';
import { SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import { loadPolicy } from '../policies/load-policy';
import type { Policy } from '../policies/policy-types';
import { dryRunSync } from '../sync/dry-run-sync';
import { runAccessSync } from '../sync/run-access-sync';
import { runSync, type SyncOptions, type SyncProgress, type SyncSummary } from '../sync/run-sync';
import { formatDryRun } from './format-dry-run';
import { openStaging, type Staging } from './open-staging';
import { parseInterval } from './parse-interval';
import { projectRoot } from '../lib/project-root';
import { failureLines } from './run-failures';
import type { Runtime } from './runtime';

/** How long a cancelled sync may take to record itself as cancelled before the process ends anyway. */
const SYNC_CANCEL_BUDGET_MS = 5_000;
/** The default full-run cadence: content a lost change event left stale converges within a day. */
const DEFAULT_FULL_EVERY = '24h';

interface SyncFlags {
  all?: boolean;
  policy?: string;
  full?: boolean;
  accessOnly?: boolean;
  allowMassDelete?: boolean;
  every?: string;
  fullEvery: string;
  dryRun?: boolean;
}

export function formatSummary(s: SyncSummary): string {
  const c = s.counts;
  const i = s.identities;
  const head = `${s.source}: ${s.mode}${s.resumed ? ' (resumed)' : ''} sync ${s.status}`;
  const counts = `files added ${c.added}, changed ${c.changed}, unchanged ${c.unchanged}, deleted ${c.deleted}, failed ${c.failed}; users and groups added ${i.added}, changed ${i.changed}, unchanged ${i.unchanged}, deleted ${i.deleted}`;
  const tail = [s.fellBackToFull ? `full because ${s.fellBackToFull}` : '', reconciliationNote(s), s.error ?? ''].filter(Boolean).join('; ');
  return `${head}: ${counts} in ${(s.durationMs / 1000).toFixed(1)} s${tail ? ` — ${tail}` : ''}`;
}

/** What access reconciliation found that no change event announced (a lossy change feed at work). */
function reconciliationNote(s: SyncSummary): string {
  const r = s.reconciliation;
  if (!r) return '';
  return `reconciled against ${r.listed} listed files, changes no event announced: ${r.unannounced} (access lists ${r.accessRewritten}, deletions ${r.deleted}, files read again ${r.refreshed})`;
}

/** The run's options from the settings and flags: the guards, the error budget, the batch size, the lock's heartbeat. */
export function syncOptions(config: Config, flags: { full?: boolean; allowMassDelete?: boolean }, fullEveryMs: number | undefined): Partial<SyncOptions> {
  return {
    mode: flags.full ? 'full' : 'auto',
    ...(fullEveryMs !== undefined ? { fullEveryMs } : {}),
    allowMassDelete: Boolean(flags.allowMassDelete),
    maxDeleteShare: config.syncMaxDeleteShare,
    errorBudget: { maxFailures: config.syncMaxFailures, maxFailureRatio: config.syncMaxFailureRatio, minItems: 50 },
    batchSize: config.syncBatchSize,
    tombstoneRetentionMs: config.tombstoneRetentionDays * 24 * 3600 * 1000,
    lockLeaseMs: config.syncHeartbeatSeconds * 1000,
  };
}

/**
 * Progress on a terminal: a bar with items, rate and an ETA estimated from the previous run's
 * item count; elsewhere a structured log line per committed batch.
 */
function progressReporter(runtime: Runtime, logger: Logger, expected: number | undefined): { onProgress(p: SyncProgress): void; stop(): void } {
  if (!runtime.interactive) {
    return {
      onProgress: (p) => logger.info({ source: p.source, mode: p.mode, processed: p.processed, counts: p.counts, identities: p.identities }, 'sync progress'),
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({
    format: ' {source} [{bar}] {value}{ofTotal} items | {rate}/s | ETA {eta_formatted}',
    hideCursor: true,
    etaBuffer: 50,
  });
  let started = false;
  return {
    onProgress(p) {
      const total = Math.max(expected ?? p.processed, p.processed);
      const payload = { source: p.source, rate: Math.round(p.processed / Math.max(p.elapsedMs / 1000, 0.001)), ofTotal: expected ? `/~${total}` : '' };
      if (!started) {
        bar.start(total, p.processed, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(p.processed, payload);
      }
    },
    stop: () => started && bar.stop(),
  };
}

async function syncOnce(
  factories: readonly AdapterFactory[],
  ctx: {
    runtime: Runtime;
    config: Config;
    logger: Logger;
    staging: Staging;
    signal: AbortSignal;
    flags: { full?: boolean; accessOnly?: boolean; allowMassDelete?: boolean; policy?: string; dryRun?: boolean };
    fullEveryMs: number | undefined;
  },
): Promise<boolean> {
  let ok = true;
  for (const factory of factories) {
    if (ctx.signal.aborted) break;
    let adapter: Adapter;
    try {
      adapter = await factory.create(ctx.runtime.env, { logger: ctx.logger });
    } catch (error) {
      // A misconfigured adapter fails its own round; the others (and the schedule) go on.
      ctx.runtime.print(`${factory.name}: not configured — ${(error as Error).message}`);
      ok = false;
      continue;
    }
    // Read every round, so an edited policy takes effect at the next one.
    const policyFile = ctx.flags.policy ?? ctx.config.accessPolicies[adapter.name];
    let policy: Policy | undefined;
    if (policyFile !== undefined) {
      try {
        policy = await loadPolicy(policyFile);
      } catch (error) {
        ctx.runtime.print(`${adapter.name}: access policy refused — ${(error as Error).message}`);
        ok = false;
        continue;
      }
    }
    const previous = await new SyncRunsRepository(ctx.staging.db).latest(adapter.name);
    const prevCounts = previous?.counts ? (JSON.parse(previous.counts) as Record<string, number>) : undefined;
    const expected = prevCounts ? Object.values(prevCounts).reduce((a, b) => a + b, 0) : undefined;
    const progress = progressReporter(ctx.runtime, ctx.logger, expected);
    try {
      const deps = { db: ctx.staging.db, blobs: ctx.staging.blobs, logger: ctx.logger, signal: ctx.signal };
      const options = { ...syncOptions(ctx.config, ctx.flags, ctx.fullEveryMs), ...(policy ? { policy } : {}), onProgress: progress.onProgress };
      if (ctx.flags.dryRun) {
        const dry = await dryRunSync(adapter, deps, options);
        progress.stop();
        for (const line of formatDryRun(dry)) ctx.runtime.print(line);
        if (dry.summary.status !== 'succeeded') ok = false;
        continue;
      }
      const summary = ctx.flags.accessOnly ? await runAccessSync(adapter, deps, options) : await runSync(adapter, deps, options);
      progress.stop();
      ctx.runtime.print(formatSummary(summary));
      for (const line of failureLines(summary.source, summary.failures, summary.counts.failed)) ctx.runtime.print(line);
      if (summary.status !== 'succeeded') ok = false;
    } catch (error) {
      progress.stop();
      ctx.runtime.print(`${adapter.name}: sync could not run — ${(error as Error).message}`);
      ok = false;
    }
  }
  return ok;
}

/**
 * When the built program (dist/) does not know an adapter whose sources are in src/adapters (one
 * `new-adapter` just wrote), the build is older than the sources: say so, rather than only "unknown".
 */
function staleBuildHint(name: string): string {
  const runningBuilt = path.extname(__filename) === '.js';
  const source = path.join(projectRoot(), 'src', 'adapters', name);
  return runningBuilt && fs.existsSync(source)
    ? ` src/adapters/${name}/ exists, but this built program is older than it: run \`npm run build\` (or use \`npm run cli -- sync ${name}\`, which runs the sources).`
    : '';
}

/**
 * `--all`: the adapters the environment configures, saying once which it skips (not a failure);
 * none configured is a usage error naming where the settings are listed.
 */
function allConfigured(runtime: Runtime, usageError: (message: string) => never): AdapterFactory[] {
  const { configured, skipped } = configuredAdapters(adapterFactories, runtime.env);
  if (configured.length === 0) usageError(`--all found no configured adapter: set an adapter's settings (\`sync --help\` lists them, docs/adapters.md).`);
  if (skipped.length > 0)
    runtime.print(`sync --all: skipped ${skipped.map((f) => f.name).join(', ')}: not configured (none of its settings is set; \`sync --help\` lists them)`);
  return configured;
}

/** The adapters a `sync` names (one, or `--all`'s configured ones); none is a usage error. */
export function selectAdapters(
  name: string | undefined,
  flags: Pick<SyncFlags, 'all'>,
  runtime: Runtime,
  usageError: (message: string) => never,
): AdapterFactory[] {
  const factories = flags.all ? allConfigured(runtime, usageError) : name ? [findAdapterFactory(name)].filter((f): f is AdapterFactory => f !== undefined) : [];
  if (factories.length === 0) {
    const known = adapterFactories.map((f) => f.name).join(', ') || 'none';
    usageError(
      name
        ? `Unknown adapter '${name}'. Registered adapters: ${known}.${staleBuildHint(name)}`
        : `Name an adapter or use --all. Registered adapters: ${known}.`,
    );
  }
  return factories;
}

/** `--every` and `--full-every` as milliseconds; a malformed interval is a usage error. */
export function parseSchedule(
  flags: Pick<SyncFlags, 'every' | 'fullEvery'>,
  usageError: (message: string) => never,
): { interval: number | undefined; fullEveryMs: number | undefined } {
  try {
    return {
      interval: flags.every !== undefined ? parseInterval(flags.every) : undefined,
      fullEveryMs: flags.fullEvery === 'off' ? undefined : parseInterval(flags.fullEvery, { option: '--full-every', maxMs: Number.MAX_SAFE_INTEGER }),
    };
  } catch (error) {
    return usageError((error as Error).message);
  }
}

export function registerSyncCommand(program: Command, runtime: Runtime): void {
  program
    .command('sync')
    .argument('[adapter]', `adapter to run (${adapterFactories.map((f) => f.name).join(', ') || 'none registered'})`)
    .description('Sync a source into staging: incremental when the adapter can and has a checkpoint, else full (mark-and-sweep).')
    .option('--all', 'sync every configured adapter (one with any of its settings set), one after another; the others are skipped')
    .option(
      '--policy <file>',
      "compile this access policy (YAML, docs/access-policies.md) into the adapter's groups and access lists; overrides ACCESS_POLICIES for it",
    )
    .option('--full', 'force a full run (re-reads everything; sweeps what the source no longer has)')
    .option(
      '--access-only',
      'read and apply only who may see what (users, groups, members, access lists; no content): runs beside a full or incremental run of the source, under a lock of its own',
    )
    .option('--allow-mass-delete', `let a full run delete more than SYNC_MAX_DELETE_SHARE of a source's files`)
    .option('--dry-run', 'report what the sync would add, change and delete (counts and the first ids); write nothing to staging or the blob store')
    .option('--every <interval>', 'keep running: start again this long after each round began (90s, 15m, 1h); rounds never overlap')
    .option(
      '--full-every <interval>',
      "run full instead of incremental when the source's latest full run started this long ago (e.g. 24h; `off`: only when needed): content a lost change event left stale converges within it",
      DEFAULT_FULL_EVERY,
    )
    .addHelpText('after', () => adapterSettingsHelp())
    .action(async (name: string | undefined, flags: SyncFlags, command: Command) => {
      // Usage mistakes are reported like commander's own (`error: …`, exit 1), not as a stack trace.
      const usageError = (message: string): never =>
        command.showHelpAfterError(false).error(`error: ${message}`, { exitCode: 1, code: 'content-gateway.sync' });
      const config = loadConfig(runtime.env);
      const logger = createLogger({ level: config.logLevel, pretty: wantsPrettyLogs(config.logFormat, runtime.interactive) });
      if (flags.policy !== undefined && (flags.all || !name))
        usageError('--policy applies to one named adapter; for several, set ACCESS_POLICIES=<adapter>=<file>,...');
      if (flags.dryRun && flags.every !== undefined) usageError('--dry-run runs once; it cannot be combined with --every.');
      if (flags.accessOnly && (flags.full || flags.dryRun)) usageError('--access-only reads no content: it cannot be combined with --full or --dry-run.');
      const factories = selectAdapters(name, flags, runtime, usageError);
      const { interval, fullEveryMs } = parseSchedule(flags, usageError);
      const staging = await openStaging(config, logger);
      const controller = new AbortController();
      let finished: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finished = resolve));
      // On SIGTERM: cancel the running sync (it records itself as cancelled) and wait for it.
      runtime.onShutdown(async () => {
        controller.abort();
        await done;
      }, SYNC_CANCEL_BUDGET_MS);
      try {
        for (;;) {
          const roundStarted = Date.now();
          const ok = await syncOnce(factories, { runtime, config, logger, staging, signal: controller.signal, flags, fullEveryMs });
          if (!interval) {
            if (!ok) runtime.setExitCode(1);
            return;
          }
          if (controller.signal.aborted) return;
          const wait = Math.max(0, roundStarted + interval - Date.now());
          logger.info({ nextInMs: wait }, 'next sync round scheduled');
          // Shutdown aborts the controller, which ends the wait at once.
          await sleep(wait, undefined, { signal: controller.signal }).catch((error: unknown) => {
            if (!isAbortError(error)) throw error;
          });
          if (controller.signal.aborted) return;
        }
      } finally {
        await staging.close();
        finished();
      }
    });
}
