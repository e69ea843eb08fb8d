import type { Command } from 'commander';
import { runHarness } from '../harness/run-harness';
import { createLogger } from '../logging/create-logger';
import { parseRatio } from './parse-ratio';
import type { Runtime } from './runtime';

interface HarnessFlags {
  seed: string;
  tasks: number;
  mockUrl?: string;
  mockToken?: string;
  hostile?: boolean;
  faultRate?: number;
  eventLossRate?: number;
  reconcile: boolean;
  rawIds: boolean;
  databaseUrl?: string;
  out: string;
}

export function registerHarnessCommand(program: Command, runtime: Runtime): void {
  program
    .command('harness')
    .description(
      'End-to-end scenario: a generated organization in the work-management mock, synced by its adapter into a fresh staging database, ' +
        'served by the gateway, crawled like the platform, and every (user, file) access compared with the mock’s visibility oracle — ' +
        'before and after a round of changes (moves, a member leaving, deletions, a comment edit) and an incremental sync; ' +
        'when the mock loses events, after a full run as well.',
    )
    .option('--seed <seed>', 'organization generator seed', '7')
    .option('--tasks <n>', 'tasks in the generated organization', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 50) throw new Error('--tasks takes a whole number of at least 50');
      return n;
    }, 1200)
    .option('--mock-url <url>', 'use a running `mock work-management` instead of starting one')
    .option('--mock-token <token>', 'its bearer token (with --mock-url)')
    .option('--hostile', "keep the mock's default rate limits on (slower, closer to the real service)")
    .option('--fault-rate <ratio>', 'share of the mock’s API requests answered 500/503 (0 to 1; with --mock-url set on the running mock)', parseRatio)
    .option('--event-loss-rate <ratio>', 'share of events the mock never delivers (0 to 1; with --mock-url set on the running mock)', parseRatio)
    .option('--no-reconcile', 'turn access reconciliation off, to see what lost events cost')
    .option('--no-raw-ids', 'crawl with percent-encoded ids (default: pasted in raw, as the platform\'s own tools send them)')
    .option('--database-url <url>', 'stage into this Postgres database, in a schema of its own dropped afterwards (default: a SQLite file)')
    .option('--out <dir>', 'where the conformance reports go', './harness-report')
    .action(async (flags: HarnessFlags) => {
      // The crawl's robustness probes make the gateway log every 4xx it answers: keep the scenario's output readable.
      const logger = createLogger({ level: runtime.env.LOG_LEVEL ?? 'error' });
      const result = await runHarness({
        seed: flags.seed,
        tasks: flags.tasks,
        out: flags.out,
        logger,
        print: runtime.print,
        reconcile: flags.reconcile,
        rawIds: flags.rawIds,
        ...(flags.mockUrl ? { mockUrl: flags.mockUrl } : {}),
        ...(flags.mockToken ? { mockToken: flags.mockToken } : {}),
        ...(flags.hostile ? { hostile: true } : {}),
        ...(flags.faultRate !== undefined ? { faultRate: flags.faultRate } : {}),
        ...(flags.eventLossRate !== undefined ? { eventLossRate: flags.eventLossRate } : {}),
        ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
      });
      const totals = result.rounds.map((r) => `${r.label}: ${r.report.summary.checks.fail} failures, ${r.access.overExposed.length} over-exposed, ${r.access.underExposed.length} under-exposed`);
      runtime.print(`harness ${result.ok ? 'passed' : 'FAILED'} — ${totals.join('; ')}`);
      if (!result.ok) runtime.setExitCode(1);
    });
}
