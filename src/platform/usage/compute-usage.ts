import type { DataApiClient } from '../data-api-client';
import type { GatewayFile, GatewayFilesClient } from '../gateway-files-client';
import { countFileUsage, DEFAULT_FILTER_BUDGET, FILE_FIELD, type CountStrategy } from './count-file-usage';
import { citedOutside, feedbackByFile } from './feedback-by-file';
import { allOf, quote } from './odata-filter';
import type { FileUsage, UsageReport } from './usage-report';

export type UsagePhase = 'gateway' | 'counting' | 'feedback' | 'stale';

export interface UsageOptions {
  gateway: GatewayFilesClient;
  gatewayUrl: string;
  data: DataApiClient;
  /** Extra condition on every platform request, e.g. `detail/source eq 'my-connector'`. */
  scope?: string;
  strategy?: CountStrategy;
  budget?: { maxChars: number; maxTerms: number };
  /** Progress: files settled of all, per phase. */
  onProgress?: (phase: UsagePhase, done: number, total: number) => void;
  now?: () => number;
}

const byUse = (a: FileUsage, b: FileUsage): number => b.cited - a.cited || b.surfaced - a.surfaced || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Which gateway files the assistant surfaced and cited, with the feedback on answers citing them,
 * the files never surfaced, and the stale citations (cited files the gateway has since deleted).
 * Reads the gateway over HTTP and the platform's Data API cheaply (`countFileUsage`).
 */
export async function computeUsage(options: UsageOptions): Promise<UsageReport> {
  const now = options.now ?? Date.now;
  const started = now();
  const budget = options.budget ?? DEFAULT_FILTER_BUDGET;
  const progress = options.onProgress ?? (() => undefined);
  const files = await options.gateway.listFiles((n) => progress('gateway', n, n));
  const ids = files.map((f) => f.id);
  const { counts, stats } = await countFileUsage(ids, {
    data: options.data,
    ...(options.scope ? { scope: options.scope } : {}),
    strategy: options.strategy ?? 'batched',
    budget,
    onProgress: (done) => progress('counting', done, ids.length),
  });
  progress('feedback', 0, 1);
  const shared = { data: options.data, budget, ...(options.scope ? { scope: options.scope } : {}) };
  const feedback = await feedbackByFile(shared);
  progress('feedback', 1, 1);
  const platformRecords = await options.data.count(options.scope);
  const usage = files.map((f: GatewayFile): FileUsage => ({
    id: f.id,
    name: f.name,
    status: f.status,
    surfaced: 0,
    cited: 0,
    helpful: 0,
    unhelpful: 0,
    ...counts.get(f.id),
    ...feedback.byFile.get(f.id),
  }));
  const missingChecked = options.scope !== undefined;
  if (missingChecked) {
    progress('stale', 0, 1);
    const known = new Set(ids);
    const citedTotal = await options.data.count(allOf(options.scope, 'cited eq true'));
    const citedKnown = usage.reduce((n, f) => n + f.cited, 0);
    if (citedTotal > citedKnown) {
      for (const [id, cited] of await citedOutside(shared, known)) {
        const surfaced = await options.data.count(allOf(options.scope, `${FILE_FIELD} eq ${quote(id)}`));
        usage.push({ id, name: id, status: 'missing', surfaced, cited, helpful: 0, unhelpful: 0, ...feedback.byFile.get(id) });
      }
    }
    progress('stale', 1, 1);
  }
  usage.sort(byUse);
  return {
    generatedAt: new Date(now()).toISOString(),
    gatewayUrl: options.gatewayUrl,
    dataApiUrl: options.data.baseUrl,
    scope: options.scope ?? null,
    files: usage,
    neverSurfaced: usage.filter((f) => f.status === 'active' && f.surfaced === 0).map((f) => f.id),
    staleCitations: usage.filter((f) => f.status !== 'active' && f.cited > 0),
    totals: totalsOf(usage, platformRecords, feedback.ratings),
    missingChecked,
    requests: { platform: options.data.requestCount, gateway: options.gateway.requestCount },
    counting: { ...stats, strategy: options.strategy ?? 'batched' },
    elapsedMs: now() - started,
  };
}

function totalsOf(usage: readonly FileUsage[], platformRecords: number, ratings: number): UsageReport['totals'] {
  const sum = (pick: (f: FileUsage) => number) => usage.reduce((n, f) => n + pick(f), 0);
  return {
    files: usage.length,
    activeFiles: usage.filter((f) => f.status === 'active').length,
    surfacedFiles: usage.filter((f) => f.surfaced > 0).length,
    citedFiles: usage.filter((f) => f.cited > 0).length,
    surfaced: sum((f) => f.surfaced),
    cited: sum((f) => f.cited),
    helpful: sum((f) => f.helpful),
    unhelpful: sum((f) => f.unhelpful),
    platformRecords,
    ratings,
  };
}
