import { InvalidArgumentError, type Command } from 'commander';
import { refuseSecretOption, writeCredentialsFile } from './kit-secrets';
import { registerMockPlatformCommand } from './mock-platform-command';
import { parseRatio } from './parse-ratio';
import type { KitRuntime } from './kit-runtime';
import { serveMock, wholeNumber, withListenOptions } from './serve-mock';

/** `100` or `20-200` (milliseconds). */
function latency(text: string): { min: number; max: number } {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) throw new InvalidArgumentError('takes milliseconds, e.g. 100 or 20-200');
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (max < min) throw new InvalidArgumentError('the maximum is below the minimum');
  return { min, max };
}

function size(text: string): string | number {
  if (/^\d+$/.test(text)) return Number(text);
  if (['tiny', 'small', 'medium', 'large', 'xlarge'].includes(text)) return text;
  throw new InvalidArgumentError('takes tiny, small, medium, large, xlarge or a number of tasks (12 to 100000)');
}

interface MockFlags {
  port: number;
  host: string;
  seed: string;
  size: string | number;
  credentialsFile: string;
  rateLimit: number;
  concurrentReads: number;
  concurrentWrites: number;
  latency?: { min: number; max: number };
  faultRate: number;
  downloadTtl: number;
  syncTokenTtl: number;
  jobDuration: number;
  eventLossRate: number;
}

/**
 * `mock work-management`: serves a generated organization as the work-management API on
 * loopback, for adapter development and the end-to-end scenario.
 */
export function registerMockCommand(program: Command, runtime: KitRuntime): void {
  const mock = program.command('mock').description('Run a mock of an outside system for development and end-to-end tests.');
  const command = mock
    .command('work-management')
    .description(
      'Serve a generated organization as the work-management API under /api/1.0 (plus /_oracle and /_admin for tests). ' +
        "The same --seed and --size always give the same organization. The service account's bearer token is WM_MOCK_TOKEN from the environment " +
        '(default: derived from the seed), written to --credentials-file, never printed.',
    );
  withListenOptions(command, 4010)
    .option('--seed <seed>', 'generator seed', '1')
    .option('--size <size>', 'tiny | small | medium | large | xlarge, or a number of tasks', size, 'small')
    .option('--credentials-file <file>', 'where the bearer token goes (JSON, mode 600)', 'data/mock-work-management-credentials.json')
    .option('--rate-limit <perMinute>', 'requests per token per minute before 429 (0: off)', wholeNumber('--rate-limit', 0), 1500)
    .option('--concurrent-reads <n>', 'GETs in flight per token before 429 (0: off)', wholeNumber('--concurrent-reads', 0), 50)
    .option('--concurrent-writes <n>', 'writes in flight per token before 429 (0: off)', wholeNumber('--concurrent-writes', 0), 15)
    .option('--latency <ms>', 'added latency per request: 100 or 20-200 (default: none)', latency)
    .option('--fault-rate <ratio>', 'share of requests answered 500/503 (0 to 1)', parseRatio, 0)
    .option('--download-ttl <seconds>', 'lifetime of attachment download_urls', wholeNumber('--download-ttl', 1), 120)
    .option('--sync-token-ttl <seconds>', 'lifetime of events sync tokens', wholeNumber('--sync-token-ttl', 1), 86_400)
    .option('--event-loss-rate <ratio>', 'share of events never delivered on /events (0 to 1)', parseRatio, 0)
    .option('--job-duration <ms>', 'time a job (duplication, export) takes to succeed', wholeNumber('--job-duration', 0), 2000)
    .action(async (flags: MockFlags) => {
      // Loaded on use: the rest of the CLI never pays for the mock.
      const { createWorkManagementMock, API_PREFIX } = await import('../mocks/work-management/create-mock-server');
      const started = Date.now();
      const wm = createWorkManagementMock({
        seed: flags.seed,
        size: flags.size as never,
        ...(runtime.env.WM_MOCK_TOKEN ? { token: runtime.env.WM_MOCK_TOKEN } : {}),
        hostility: {
          rateLimitPerMinute: flags.rateLimit,
          maxConcurrentReads: flags.concurrentReads,
          maxConcurrentWrites: flags.concurrentWrites,
          latencyMs: flags.latency ?? { min: 0, max: 0 },
          faultRate: flags.faultRate,
          downloadUrlTtlMs: flags.downloadTtl * 1000,
          syncTokenTtlMs: flags.syncTokenTtl * 1000,
          jobDurationMs: flags.jobDuration,
          eventLossRate: flags.eventLossRate,
        },
      });
      const base = await serveMock(runtime, wm.app, flags);
      const s = wm.model;
      runtime.print(`Work-management mock listening on ${base}${API_PREFIX}`);
      runtime.print(`Bearer token: ${writeCredentialsFile(flags.credentialsFile, { token: wm.token })} (readable by you only)`);
      runtime.print(
        `Organization (seed ${flags.seed}, size ${flags.size}, built in ${Date.now() - started} ms): ${s.indexes.workspaces.size} workspaces, ${s.indexes.users.size} users, ${s.indexes.teams.size} teams, ` +
          `${s.indexes.projects.size} projects, ${s.indexes.tasks.size} tasks, ${s.indexes.stories.size} stories, ${s.indexes.attachments.size} attachments`,
      );
      runtime.print(`Oracle: ${base}/_oracle/visibility?type=task&gid=<gid> and ${base}/_oracle/visibility/all?type=task; admin: ${base}/_admin/state`);
    });
  refuseSecretOption(command, '--token', 'WM_MOCK_TOKEN');
  registerMockPlatformCommand(mock, runtime);
}
