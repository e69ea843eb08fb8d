import type { DataApiClient } from '../data-api-client';
import { allOf, anyOf, filterBatches, quote } from './odata-filter';

/** The plugin-resource field naming the gateway file a record surfaced (reference §7.1). */
export const FILE_FIELD = 'detail/external_resource_id';
/** Filter budget per request: percent-encoded characters and `or` terms. */
export const DEFAULT_FILTER_BUDGET = { maxChars: 6000, maxTerms: 100 };
/** Assumed records per Data API page until a listing shows the real size. */
const ASSUMED_PAGE_SIZE = 100;

export interface FileCounts {
  surfaced: number;
  cited: number;
}

/** How the counts were obtained: per-file counts (`per-file`, the naive way) or batched. */
export type CountStrategy = 'batched' | 'per-file';

export interface CountStats {
  batches: number;
  /** Batches whose single count was 0: every file in them was never surfaced. */
  emptyBatches: number;
  /** Batches (or parts) whose records were listed, because that was cheaper than counting file by file. */
  listed: number;
  /** Batches (or parts) split in two and counted again, because their records were too many to list. */
  split: number;
}

export interface CountOptions {
  data: DataApiClient;
  /** Extra condition on every request (e.g. `detail/source eq '…'`). */
  scope?: string;
  strategy?: CountStrategy;
  budget?: { maxChars: number; maxTerms: number };
  /** Files resolved so far of all. */
  onProgress?: (done: number) => void;
}

/**
 * Per gateway file: how many plugin resources name it (surfaced) and how many of those the answer
 * cited, cheaply. Files go in `or` batches to the count endpoint; a batch counted 0 settles every
 * file in it with one request. A batch with records is resolved the cheaper way: listing its
 * records (`$select=detail,cited`, a page per `pageSize` records) when that costs no more requests
 * than it has files, else splitting it in two and counting the halves (the right half's count is
 * the batch's minus the left's: no request). A single file's cited count is one more count.
 * `per-file` is the naive way: a count per file, and a cited count per surfaced file.
 */
export async function countFileUsage(fileIds: readonly string[], options: CountOptions): Promise<{ counts: Map<string, FileCounts>; stats: CountStats }> {
  const counts = new Map<string, FileCounts>(fileIds.map((id) => [id, { surfaced: 0, cited: 0 }]));
  const stats: CountStats = { batches: 0, emptyBatches: 0, listed: 0, split: 0 };
  const counter = new BatchCounter(options, counts, stats);
  if (options.strategy === 'per-file') {
    for (const id of fileIds) await counter.single(id, await counter.count([id]));
    return { counts, stats };
  }
  for (const batch of filterBatches(FILE_FIELD, fileIds, options.budget ?? DEFAULT_FILTER_BUDGET)) {
    stats.batches += 1;
    const total = await counter.count(batch);
    if (total === 0) {
      stats.emptyBatches += 1;
      counter.settled(batch.length);
    } else await counter.resolve(batch, total);
  }
  return { counts, stats };
}

class BatchCounter {
  private pageSize = ASSUMED_PAGE_SIZE;
  private done = 0;

  constructor(
    private readonly options: CountOptions,
    private readonly counts: Map<string, FileCounts>,
    private readonly stats: CountStats,
  ) {}

  settled(files: number): void {
    this.done += files;
    this.options.onProgress?.(this.done);
  }

  count(ids: readonly string[], cited = false): Promise<number> {
    return this.options.data.count(
      allOf(this.options.scope, cited ? 'cited eq true' : undefined, ids.length === 1 ? `${FILE_FIELD} eq ${quote(ids[0] as string)}` : anyOf(FILE_FIELD, ids)),
    );
  }

  async single(id: string, surfaced: number): Promise<void> {
    const entry = this.counts.get(id) as FileCounts;
    entry.surfaced = surfaced;
    entry.cited = surfaced > 0 ? await this.count([id], true) : 0;
    this.settled(1);
  }

  /** Per-file counts of a batch known to hold `total` records. */
  async resolve(ids: readonly string[], total: number): Promise<void> {
    if (ids.length === 1) return this.single(ids[0] as string, total);
    if (Math.ceil(total / this.pageSize) <= ids.length) return this.list(ids);
    this.stats.split += 1;
    const left = ids.slice(0, Math.ceil(ids.length / 2));
    const right = ids.slice(left.length);
    const leftTotal = await this.count(left);
    if (leftTotal > 0) await this.resolve(left, leftTotal);
    else this.settled(left.length);
    if (total - leftTotal > 0) await this.resolve(right, total - leftTotal);
    else this.settled(right.length);
  }

  /** Tallies a batch from its records; learns the platform's page size on the way. */
  private async list(ids: readonly string[]): Promise<void> {
    this.stats.listed += 1;
    const query = { filter: allOf(this.options.scope, anyOf(FILE_FIELD, ids)) as string, select: ['detail', 'cited'] };
    for await (const page of this.options.data.pages<{ detail?: { external_resource_id?: unknown }; cited?: unknown }>('plugin-resources', query)) {
      if (page.nextLink !== undefined && page.items.length > 0) this.pageSize = page.items.length;
      for (const record of page.items) {
        const entry = this.counts.get(String(record.detail?.external_resource_id));
        if (!entry) continue;
        entry.surfaced += 1;
        if (record.cited === true) entry.cited += 1;
      }
    }
    this.settled(ids.length);
  }
}
