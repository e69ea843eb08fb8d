import type { Db } from 'content-gateway';
import { seededRandom } from './seeded-random';

export interface StagedRuns {
  runs: number;
  /** Runs that succeeded with failed items (partial successes). */
  partial: number;
  /** Runs that failed whole. */
  failed: number;
}

const SOURCE = 'bench';
const RUNS = 400;
const T0 = Date.parse('2025-06-01T00:00:00.000Z');
const HOUR_MS = 3_600_000;

/**
 * A source's history of sync runs, as the console reads it: an incremental run an hour (a full
 * one a day), about a fifth succeeding with failed items (1-100 of them, `<item>: <reason>`, some
 * items failing run after run), a few failing whole, and the newest a partial success, so the
 * failing page has items with streaks to look back on.
 */
export async function stageRuns(db: Db, seed = 3232): Promise<StagedRuns> {
  const random = seededRandom(seed);
  const chronic = Array.from({ length: 40 }, (_, k) => `bench:chronic-${k}.pdf`);
  const rows: Array<Record<string, unknown>> = [];
  let partial = 0;
  let failed = 0;
  for (let n = 0; n < RUNS; n += 1) {
    const started = T0 + n * HOUR_MS;
    const mode = n % 24 === 0 ? 'full' : 'incremental';
    const roll = n === RUNS - 1 ? 0 : random();
    const failedItems =
      roll < 0.2
        ? [...chronic.slice(0, 5 + Math.floor(random() * 35)), ...Array.from({ length: Math.floor(random() * 60) }, (_, k) => `bench:item-${n}-${k}.docx`)]
        : [];
    const status = roll > 0.97 ? 'failed' : 'succeeded';
    if (status === 'failed') failed += 1;
    else if (failedItems.length) partial += 1;
    const counts = {
      added: Math.floor(random() * 50),
      changed: Math.floor(random() * 200),
      unchanged: 99_000,
      deleted: Math.floor(random() * 10),
      failed: failedItems.length,
      skipped: 0,
    };
    rows.push({
      source: SOURCE,
      mode,
      status,
      started_at: new Date(started).toISOString(),
      heartbeat_at: new Date(started + 60_000).toISOString(),
      finished_at: new Date(started + 60_000 + Math.floor(random() * 600_000)).toISOString(),
      counts: JSON.stringify(status === 'failed' ? { ...counts, failed: 0 } : counts),
      error:
        status === 'failed'
          ? 'the source answered 503 Service Unavailable three times'
          : failedItems.map((item) => `${item}: extraction failed (corrupt file)`).join('\n') || null,
      unannounced: Math.floor(random() * 3),
    });
  }
  for (let i = 0; i < rows.length; i += 100) await db('sync_runs').insert(rows.slice(i, i + 100));
  return { runs: RUNS, partial, failed };
}
