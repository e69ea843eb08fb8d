import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runHarness } from '@content-gateway/kit/src/scenarios/run-harness';
import { QUICK_RETRIES } from '../helpers/quick-retries';
import { databaseKinds } from '../helpers/test-databases';

/**
 * The mock delivers events at most once. Seed 2's change round loses 3 of its 10 events at a
 * loss rate of 0.2 and 6 at 0.5: without access reconciliation the incremental run leaves 74 and
 * 110 (user, file) pairs over-exposed (deleted tasks still served, moved tasks with their old
 * project's audience). With it, none; the comment edit whose event is lost (it moves no clock)
 * waits for the full run that follows.
 */
const SCENARIOS = [
  { name: 'events lost at 0.2', eventLossRate: 0.2 },
  { name: 'events lost at 0.5, 5 % of requests failing', eventLossRate: 0.5, faultRate: 0.05 },
];

describe.each(databaseKinds)('the end-to-end harness (work-management mock → adapter → %s staging → gateway → conformance crawl → oracle)', (kind) => {
  it.each(SCENARIOS)(
    '$name: no conformance failure and no over- or under-exposed (user, file) pair, before and right after the incremental run of the change round',
    async (scenario) => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-harness-test-'));
      const lines: string[] = [];
      try {
        const result = await runHarness({
          seed: '2',
          tasks: 250,
          out,
          logger: pino({ level: 'silent' }),
          print: (l) => lines.push(l),
          retryPolicy: QUICK_RETRIES,
          ...scenario,
          ...(kind === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL } : {}),
        });
        expect(result.events?.lost).toBeGreaterThan(0);
        expect(result.rounds.map((r) => r.label)).toEqual(['initial', 'after changes', 'after a full run']);
        for (const round of result.rounds) {
          expect([round.label, round.report.summary.checks.fail]).toEqual([round.label, 0]);
          expect([round.label, round.access.overExposed]).toEqual([round.label, []]);
          expect([round.label, round.access.underExposed]).toEqual([round.label, []]);
          expect(round.access.filesCompared).toBeGreaterThan(250);
          for (const check of round.checks) expect([round.label, check.name, check.ok, check.detail]).toEqual([round.label, check.name, true, check.detail]);
          expect(fs.existsSync(round.reportPaths.html)).toBe(true);
          // The crawl pasted ids in raw, as the platform's tools do, and read everything that way.
          expect(round.report.options.rawIds).toBe(true);
          const active = round.report.crawl.files.filter((f) => f.listing.status !== 'deleted');
          expect(
            active
              .filter((f) => f.detail?.status !== 200 || f.permissions?.status !== 200 || (f.download && f.download.status !== 200))
              .map((f) => f.listing.id),
          ).toEqual([]);
          expect(active.filter((f) => f.download?.status === 200).length).toBeGreaterThan(0);
          expect(round.report.crawl.groups.filter((g) => g.members?.status !== 200).map((g) => g.id)).toEqual([]);
        }
        const incremental = result.rounds[1]?.sync;
        expect(incremental?.mode).toBe('incremental');
        // What reconciliation caught is what the lost events would have left over-exposed.
        expect(incremental?.reconciliation?.unannounced).toBeGreaterThan(0);
        expect(result.changes?.movedTasks).toHaveLength(3);
        expect(result.ok).toBe(true);
        expect(lines.join('\n')).toMatch(kind === 'postgres' ? /staging: postgres \(schema harness_/ : /staging: sqlite/);
        expect(lines.join('\n')).toMatch(/HTML report: .*conformance-report\.html/);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
