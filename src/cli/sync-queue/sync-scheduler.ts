import type { AdapterFactory } from '../../adapters/adapter-factory';

/**
 * The kinds of run a source is scheduled for, each on its own schedule: `incremental` (the
 * source's changes since its checkpoint, with access reconciliation; full when there is no valid
 * checkpoint), `full` (everything re-read, what is gone swept) and `access` (access only, no
 * content: under a lock of its own, so a slow crawl never delays a revocation).
 */
export type SyncKind = 'incremental' | 'full' | 'access';

/**
 * A source's schedule: an incremental run every `everyMs`, a full run every `fullEveryMs`, an
 * access-only run every `accessEveryMs` (none when undefined).
 */
export interface SourceSchedule {
  factory: AdapterFactory;
  everyMs: number;
  fullEveryMs: number | undefined;
  accessEveryMs?: number | undefined;
}

/**
 * What starts syncs on their schedules until stopped: in this process with SQLite (rounds, as
 * `sync --every` runs them), or as jobs on a Postgres-backed queue any number of `sync-worker`
 * processes share.
 */
export interface SyncScheduler {
  /** Schedules and runs syncs until `signal` aborts; resolves once the syncs it was running have ended. */
  run(signal: AbortSignal): Promise<void>;
}
