import type { BlobStore } from '../blobs/blob-store';
import type { Logger } from '../logging/create-logger';
import type { Policy } from '../policies/policy-types';
import type { Db } from '../staging/database/create-db';
import type { SyncCounts, SyncMode, SyncRunStatus, WithRunEnd } from '../staging/repositories/sync-runs-repository';
import { DEFAULT_ERROR_BUDGET, type ErrorBudgetLimits } from './error-budget';
import type { ReconciliationStats } from './reconcile-access';

export interface SyncOptions {
  /** `auto`: incremental when the adapter can and a valid checkpoint exists, else full. */
  mode: 'full' | 'incremental' | 'auto';
  /** Lets a full run tombstone more than `maxDeleteShare` of the source's active files. */
  allowMassDelete: boolean;
  maxDeleteShare: number;
  /** The guard applies only to sources with at least this many active files. */
  massDeleteMinFiles: number;
  errorBudget: ErrorBudgetLimits;
  /** Events per transaction. */
  batchSize: number;
  /** How long tombstones are served before they are purged. */
  tombstoneRetentionMs: number;
  lockLeaseMs: number;
  /**
   * Access reconciliation after incremental runs of adapters that offer it (`liveFiles` and
   * `settle`): a lost change event then delays a change of content, never one of access or a
   * deletion. On by default; off only to measure what it costs or catches.
   */
  reconcile: boolean;
  /**
   * With `mode: 'auto'`, run full (re-read all content, sweep) when the source's latest full run
   * started at least this long ago: content that lost events left stale converges within it.
   */
  fullEveryMs?: number;
  /**
   * The source's access policy (docs/access-policies.md): the run compiles it into groups and each
   * file's access list (the policy stage, stages/policy-stage.ts). The adapter knows nothing of it.
   */
  policy?: Policy;
  onProgress?: (progress: SyncProgress) => void;
  /** The queue job this run works (`sync-worker` on Postgres), recorded on its run row. */
  jobId?: string;
  /** Written in the transaction that records how the run ended (a worker completes its job there). */
  withRunEnd?: WithRunEnd;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  mode: 'auto',
  allowMassDelete: false,
  maxDeleteShare: 0.5,
  massDeleteMinFiles: 10,
  errorBudget: DEFAULT_ERROR_BUDGET,
  batchSize: 500,
  tombstoneRetentionMs: 30 * 24 * 3600 * 1000,
  lockLeaseMs: 60_000,
  reconcile: true,
};

export interface SyncDeps {
  db: Db;
  blobs: BlobStore;
  logger: Logger;
  now?: () => Date;
  signal?: AbortSignal;
}

/** What a run did to users and groups (a source's people and teams, not its files). */
export interface IdentityCounts {
  added: number;
  changed: number;
  unchanged: number;
  /** Users made Inactive and groups removed. */
  deleted: number;
}

export interface SyncProgress {
  source: string;
  mode: SyncMode;
  processed: number;
  /** Files only; users and groups are in `identities`. */
  counts: SyncCounts;
  identities: IdentityCounts;
  elapsedMs: number;
}

export interface SyncSummary {
  source: string;
  runId: number;
  mode: SyncMode;
  status: Exclude<SyncRunStatus, 'running'>;
  /** Files only (what `sync_runs.counts` keeps); users and groups are in `identities`. */
  counts: SyncCounts;
  identities: IdentityCounts;
  durationMs: number;
  /** A full run that continued an interrupted one. */
  resumed: boolean;
  /** Why an incremental run became a full one (or why a full one was due). */
  fellBackToFull?: string;
  /** What access reconciliation did (incremental runs of adapters that offer it). */
  reconciliation?: ReconciliationStats;
  error?: string;
  failures: string[];
}
