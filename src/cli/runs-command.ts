import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { SyncRunsRepository, failuresOf, type SyncRunRow } from '../staging/repositories/sync-runs-repository';
import { withStaging } from './open-staging';
import type { Runtime } from './runtime';
import { UsageError } from './usage-error';

interface RunsFlags {
  limit: string;
  json?: boolean;
  check?: boolean;
}

const counts = (run: SyncRunRow): Record<string, number> => (run.counts ? (JSON.parse(run.counts) as Record<string, number>) : {});

function duration(run: SyncRunRow): string {
  if (!run.finished_at) return 'running';
  return `${((Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000).toFixed(1)} s`;
}

/** One line a run: when, what, how it ended, what it did; its error when it failed. */
function runLine(run: SyncRunRow): string {
  const c = counts(run);
  const did = `added ${c.added ?? 0}, changed ${c.changed ?? 0}, deleted ${c.deleted ?? 0}, failed ${c.failed ?? 0}`;
  const error = run.status !== 'succeeded' && run.error ? ` — ${run.error.split('\n')[0]}` : '';
  return `#${run.id}  ${run.started_at}  ${run.source}  ${run.mode}  ${run.status}  ${duration(run)}  ${did}${error}`;
}

/** What is failing now: each source's newest finished run, its failed items or its error. */
function stillFailing(latest: readonly SyncRunRow[]): string[] {
  const lines: string[] = [];
  for (const run of latest) {
    const failures = failuresOf(run);
    const failed = counts(run).failed ?? 0;
    if (run.status !== 'succeeded') lines.push(`${run.source}: its last run (#${run.id}) ${run.status}${run.error ? `: ${run.error.split('\n')[0]}` : ''}`);
    else if (failed > 0) {
      lines.push(`${run.source}: ${failed} item(s) failed in its last run (#${run.id}), retried on the next:`);
      lines.push(...failures.map((failure) => `  ${failure}`));
      if (failed > failures.length) lines.push(`  … and ${failed - failures.length} more (the run records its first ${failures.length})`);
    }
  }
  return lines.length ? lines : ["Nothing is failing: every source's last run succeeded with no failed item."];
}

/**
 * `--check`, for health checks and scripts: healthy (true) once a run has finished and every
 * source's last run succeeded (failed items do not count: what the run loaded is served). One
 * line a source, saying why when not.
 */
function health(latest: readonly SyncRunRow[]): { healthy: boolean; lines: string[] } {
  if (latest.length === 0) return { healthy: false, lines: ['unhealthy: no sync run has finished yet'] };
  const lines = latest.map((run) =>
    run.status === 'succeeded'
      ? `ok: ${run.source}'s last run (#${run.id}) succeeded at ${run.finished_at ?? '?'}`
      : `unhealthy: ${run.source}'s last run (#${run.id}) ${run.status}${run.error ? `: ${run.error.split('\n')[0]}` : ''}`,
  );
  return { healthy: latest.every((run) => run.status === 'succeeded'), lines };
}

export function registerRunsCommand(program: Command, runtime: Runtime): void {
  program
    .command('runs')
    .argument('[source]', 'only this source (its adapter name)')
    .option('--limit <n>', 'how many recent runs to list', '10')
    .option('--json', 'print the runs and what is failing as JSON (for scripts)')
    .option('--check', "exit 0 only when a run has finished and every source's last run succeeded, else 1 (a health check: compose's sync worker)")
    .description(
      "Show recent sync runs (kind, outcome, counts, duration), and what is still failing: each source's last run, its failed items with their reasons, or its error.",
    )
    .action(async (source: string | undefined, flags: RunsFlags) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit takes a whole number of at least 1.');
      await withStaging(loadConfig(runtime.env), async (staging) => {
        const repository = new SyncRunsRepository(staging.db);
        const runs = await repository.recent(limit, source);
        const latest = (await repository.latestFinishedPerSource()).filter((run) => !source || run.source === source);
        if (flags.check) {
          const { healthy, lines } = health(latest);
          for (const line of lines) runtime.print(line);
          if (!healthy) runtime.setExitCode(1);
          return;
        }
        if (flags.json) {
          const failing = latest.map((run) => ({
            source: run.source,
            run: run.id,
            status: run.status,
            failed: counts(run).failed ?? 0,
            failures: failuresOf(run),
            error: run.status === 'succeeded' ? null : run.error,
          }));
          runtime.print(JSON.stringify({ runs: runs.map((run) => ({ ...run, counts: counts(run) })), failing }, null, 2));
          return;
        }
        runtime.print(runs.length ? `Recent runs${source ? ` of ${source}` : ''}, newest first:` : `No sync run yet${source ? ` of ${source}` : ''}.`);
        for (const run of runs) runtime.print(`  ${runLine(run)}`);
        runtime.print('');
        runtime.print('Still failing:');
        for (const line of stillFailing(latest)) runtime.print(`  ${line}`);
      });
    });
}
