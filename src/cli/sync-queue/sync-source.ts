import type { AdapterFactory } from '../../adapters/adapter-factory';
import type { Config } from '../../config/config-schema';
import type { Logger } from '../../logging/create-logger';
import { loadPolicy } from '../../policies/load-policy';
import { runAccessSync } from '../../sync/run-access-sync';
import { runSync, type SyncSummary } from '../../sync/run-sync';
import type { WithRunEnd } from '../../staging/repositories/sync-runs-repository';
import type { Staging } from '../open-staging';
import { failureLines } from '../run-failures';
import type { Runtime } from '../runtime';
import { formatSummary, syncOptions } from '../sync-command';
import type { SyncKind } from './sync-scheduler';

export interface SourceSyncContext {
  runtime: Runtime;
  config: Config;
  logger: Logger;
  staging: Staging;
  signal: AbortSignal;
}

/**
 * One scheduled run of a source: its adapter built from the environment and its access policy
 * read (both again every run, so an edited setting or policy takes effect at the next), then the
 * sync, recorded in `sync_runs` like any `sync`. `full`: a full run; `incremental`: `sync`'s
 * auto mode, full every `fullEveryMs` when given; `access`: an access-only run (`sync --access-only`). Throws when the adapter is not configured or the
 * policy is refused; the summary says how the run ended. `jobId`: the queue job it works, written
 * into its run row when the row is inserted; `withRunEnd`: written in the transaction that closes it.
 */
export async function syncSource(
  factory: AdapterFactory,
  kind: SyncKind,
  fullEveryMs: number | undefined,
  ctx: SourceSyncContext & { jobId?: string; withRunEnd?: WithRunEnd },
): Promise<SyncSummary> {
  const adapter = await factory.create(ctx.runtime.env, { logger: ctx.logger });
  const policyFile = ctx.config.accessPolicies[adapter.name];
  const policy = policyFile !== undefined ? await loadPolicy(policyFile) : undefined;
  const options = {
    ...syncOptions(ctx.config, { full: kind === 'full' }, kind === 'full' ? undefined : fullEveryMs),
    ...(policy ? { policy } : {}),
    ...(ctx.jobId ? { jobId: ctx.jobId } : {}),
    ...(ctx.withRunEnd ? { withRunEnd: ctx.withRunEnd } : {}),
  };
  const deps = { db: ctx.staging.db, blobs: ctx.staging.blobs, logger: ctx.logger, signal: ctx.signal };
  const summary = kind === 'access' ? await runAccessSync(adapter, deps, options) : await runSync(adapter, deps, options);
  ctx.runtime.print(formatSummary(summary));
  for (const line of failureLines(summary.source, summary.failures, summary.counts.failed)) ctx.runtime.print(line);
  return summary;
}
