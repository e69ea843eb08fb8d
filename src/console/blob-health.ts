import type { BlobStore } from '../blobs/blob-store';
import type { Db } from '../staging/database/create-db';
import { collectBlobGarbage, SyncRunningError, type BlobGarbageSummary } from '../sync/collect-blob-garbage';
import { verifyBlobs, type BlobFinding, type VerifyBlobsSummary } from '../sync/verify-blobs';

/** One `verify-blobs` run as the console shows it: when, the counts, and the first findings. */
export interface BlobVerification {
  startedAt: string;
  finishedAt: string;
  summary: VerifyBlobsSummary;
  findings: BlobFinding[];
  /** More findings than `findings` holds (the counts in `summary` are whole). */
  truncated: boolean;
}

/** What `gc-blobs --dry-run` would delete now, or why it will not say (a sync holds a lock). */
export interface BlobGarbage {
  graceMs: number;
  summary?: BlobGarbageSummary;
  refused?: string;
}

export interface BlobHealthReport {
  store: string;
  /** The last verification this process ran (none yet: undefined), and whether one is running. */
  verification: BlobVerification | undefined;
  verifying: boolean;
  garbage: BlobGarbage;
}

export interface BlobHealthOptions {
  now?: () => Date;
  /** Findings kept of a verification (default 100): a damaged store may have millions. */
  maxFindings?: number;
  /** `gc-blobs --grace`: unreferenced blobs stored this recently are not garbage yet (default 1 h). */
  graceMs?: number;
}

const HOUR_MS = 3_600_000;

/**
 * The console's view of the blob store: `verify-blobs` (without repairing: the console only looks)
 * run on demand, its last result kept in this process, and `gc-blobs --dry-run` counted on each
 * look. Verification reads every blob whole, so it runs only when asked, one at a time.
 */
export class BlobHealth {
  private last: BlobVerification | undefined;
  private running: Promise<BlobVerification> | undefined;
  private readonly now: () => Date;

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly options: BlobHealthOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Runs `verify-blobs` (no repair), or joins the run under way. */
  verify(): Promise<BlobVerification> {
    this.running ??= this.runVerification().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async report(): Promise<BlobHealthReport> {
    return { store: this.blobs.where, verification: this.last, verifying: this.running !== undefined, garbage: await this.garbage() };
  }

  private async runVerification(): Promise<BlobVerification> {
    const max = this.options.maxFindings ?? 100;
    const findings: BlobFinding[] = [];
    let truncated = false;
    const startedAt = this.now().toISOString();
    const summary = await verifyBlobs(this.db, this.blobs, {
      repair: false,
      onFinding: (f) => {
        if (findings.length < max) findings.push(f);
        else truncated = true;
      },
    });
    this.last = { startedAt, finishedAt: this.now().toISOString(), summary, findings, truncated };
    return this.last;
  }

  private async garbage(): Promise<BlobGarbage> {
    const graceMs = this.options.graceMs ?? HOUR_MS;
    try {
      return { graceMs, summary: await collectBlobGarbage(this.db, this.blobs, { graceMs, dryRun: true, now: this.now }) };
    } catch (error) {
      if (error instanceof SyncRunningError) return { graceMs, refused: error.message };
      throw error;
    }
  }
}
