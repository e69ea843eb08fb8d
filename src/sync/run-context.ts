import type { Adapter } from '../adapters/adapter';
import type { BlobStore } from '../blobs/blob-store';
import type { Logger } from '../logging/create-logger';
import type { CheckpointsRepository } from '../staging/repositories/checkpoints-repository';
import type { SyncLock } from '../staging/repositories/sync-lock';
import type { SyncCounts, SyncMode, SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import type { SyncStore } from '../staging/write-path/sync-store';
import { ErrorBudget, SyncAbortedError, type ErrorBudgetLimits } from './error-budget';
import type { IdentityCounts, SyncOptions } from './sync-options';

/** What a run works with and does not change while it runs; every stage reads it. */
export interface RunContext {
  readonly adapter: Adapter;
  readonly source: string;
  readonly mode: SyncMode;
  readonly runId: number;
  readonly options: SyncOptions;
  readonly store: SyncStore;
  readonly runs: SyncRunsRepository;
  readonly checkpoints: CheckpointsRepository;
  readonly blobs: BlobStore;
  readonly lock: SyncLock;
  readonly logger: Logger;
  /** The run's own signal: fires when the caller's does. */
  readonly signal: AbortSignal;
  /**
   * When the run took its lock (before it read anything): the access lists it writes are as of
   * then, and never replace one an access-only run that started later wrote (see SyncStore.apply).
   */
  readonly accessAsOf: string;
  /** `Date.now()` when the run started (for durations). */
  readonly started: number;
  now(): Date;
}

/** The time of a write, as staging stores it. */
export function stampOf(ctx: Pick<RunContext, 'now'>): string {
  return ctx.now().toISOString();
}

/** Thrown where a stage sees the run cancelled: the run ends `cancelled`, before any sweep. */
export class RunCancelled extends Error {}

/** A run whose lease another run took over stops before its next write. */
export function assertLock(ctx: Pick<RunContext, 'lock' | 'source'>): void {
  if (ctx.lock.isLost) throw new SyncAbortedError(`Lost the sync lock of '${ctx.source}' (another run took over); stopping.`);
}

export function zeroCounts(): SyncCounts {
  return { added: 0, changed: 0, unchanged: 0, deleted: 0, failed: 0, skipped: 0 };
}

export function zeroIdentityCounts(): IdentityCounts {
  return { added: 0, changed: 0, unchanged: 0, deleted: 0 };
}

/**
 * What a run has counted so far, passed from stage to stage: the files and the users and groups it
 * wrote, left alone or deleted, its failures
 * (within the error budget), the events it read and, when it reconciles access afterwards, the
 * files its changes settled (written, deleted or failed), which reconciliation leaves be.
 */
export class RunTally {
  /** Files. */
  readonly counts = zeroCounts();
  /** Users and groups. */
  readonly identities = zeroIdentityCounts();
  readonly failures: string[] = [];
  processed = 0;
  private readonly budget: ErrorBudget;

  constructor(
    limits: ErrorBudgetLimits,
    readonly touched?: Set<string>,
  ) {
    this.budget = new ErrorBudget(limits);
  }

  /** An item read without failing (it counts towards the error budget's share). */
  item(): void {
    this.budget.item();
  }

  /** A failed item: counted, listed, and charged to the error budget, which throws when spent. */
  fail(what: string, error: Error): void {
    this.counts.failed++;
    this.failures.push(`${what}: ${error.message}`);
    this.budget.fail(error);
  }
}
