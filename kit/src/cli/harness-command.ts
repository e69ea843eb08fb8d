import { InvalidArgumentError, type Command } from 'commander';
import type { AccessBreak } from '../scenarios/assistant/break-access';
import { runAssistantScenario } from '../scenarios/assistant/run-assistant-scenario';
import type { HarnessMockOptions } from '../scenarios/harness-mock';
import { runMultiSourceHarness } from '../scenarios/multi-source/run-multi-source-harness';
import { runHarness } from '../scenarios/run-harness';
import { createLogger, type Logger } from 'content-gateway/logging';
import { refuseSecretOption } from './kit-secrets';
import { KitUsageError } from './kit-usage-error';
import { parseRatio } from './parse-ratio';
import type { KitRuntime } from './kit-runtime';

/** The command's options as commander parses them (the mock's settings keep their option names). */
interface HarnessFlags extends Pick<HarnessMockOptions, 'seed' | 'tasks' | 'mockUrl' | 'hostile' | 'faultRate' | 'eventLossRate'> {
  reconcile: boolean;
  rawIds: boolean;
  databaseUrl?: string;
  out: string;
  assistant?: boolean;
  questionsPerUser: number;
  probeLimit: number;
  breakAccess?: AccessBreak;
  multiSource?: boolean;
  breakPolicy?: boolean;
  webhooks?: boolean;
}

/** A whole number of at least `min` (commander reports anything else as a usage error). */
const wholeNumber =
  (min: number) =>
  (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`takes a whole number of at least ${min}`);
    return n;
  };

function parseBreak(text: string): AccessBreak {
  if (text !== 'wildcard' && text !== 'nobody')
    throw new InvalidArgumentError('takes "wildcard" (everyone sees everything) or "nobody" (access lists served empty)');
  return text;
}

function sharedOptions(flags: HarnessFlags, logger: Logger, runtime: KitRuntime) {
  return {
    seed: flags.seed,
    tasks: flags.tasks,
    out: flags.out,
    logger,
    print: runtime.print,
    reconcile: flags.reconcile,
    ...(flags.mockUrl ? { mockUrl: flags.mockUrl } : {}),
    ...(runtime.env.WM_MOCK_TOKEN ? { mockToken: runtime.env.WM_MOCK_TOKEN } : {}),
    ...(flags.hostile ? { hostile: true } : {}),
    ...(flags.faultRate !== undefined ? { faultRate: flags.faultRate } : {}),
    ...(flags.eventLossRate !== undefined ? { eventLossRate: flags.eventLossRate } : {}),
    ...(flags.webhooks ? { webhooks: true } : {}),
    ...databaseUrlOf(flags, runtime),
  };
}

/** A database URL on the command line only without a password (`ps`, shell history and CI logs keep command lines). */
function passwordlessUrl(text: string): string {
  if (!URL.canParse(text)) throw new KitUsageError('--database-url takes a postgres:// URL.');
  if (new URL(text).password !== '')
    throw new KitUsageError(
      '--database-url is refused with a password: passwords are not taken on the command line; set HARNESS_DATABASE_URL in the environment instead.',
    );
  return text;
}

/** `--database-url`, else HARNESS_DATABASE_URL, else none (a SQLite file). */
function databaseUrlOf(flags: HarnessFlags, runtime: KitRuntime): { databaseUrl?: string } {
  const url = flags.databaseUrl ?? runtime.env.HARNESS_DATABASE_URL;
  return url ? { databaseUrl: url } : {};
}

/** `harness --assistant`: the closed-loop scenario; leaks (or any failed check) end the process with 1. */
async function runAssistant(flags: HarnessFlags, logger: Logger, runtime: KitRuntime): Promise<void> {
  const result = await runAssistantScenario({
    ...sharedOptions(flags, logger, runtime),
    questionsPerUser: flags.questionsPerUser,
    probeLimit: flags.probeLimit,
    ...(flags.breakAccess ? { breakAccess: flags.breakAccess } : {}),
  });
  if (!result.ok) runtime.setExitCode(1);
}

async function runCrawlHarness(flags: HarnessFlags, logger: Logger, runtime: KitRuntime): Promise<void> {
  const result = await runHarness({ ...sharedOptions(flags, logger, runtime), rawIds: flags.rawIds });
  const totals = result.rounds.map(
    (r) => `${r.label}: ${r.report.summary.checks.fail} failures, ${r.access.overExposed.length} over-exposed, ${r.access.underExposed.length} under-exposed`,
  );
  runtime.print(`harness ${result.ok ? 'passed' : 'FAILED'} — ${totals.join('; ')}`);
  if (!result.ok) runtime.setExitCode(1);
}

/** `harness --multi-source`: three sources, one gateway; any over- or under-exposed pair (or failed check) ends the process with 1. */
async function runMultiSource(flags: HarnessFlags, logger: Logger, runtime: KitRuntime): Promise<void> {
  const result = await runMultiSourceHarness({
    seed: flags.seed,
    tasks: flags.tasks,
    out: flags.out,
    logger,
    print: runtime.print,
    ...databaseUrlOf(flags, runtime),
    ...(flags.breakPolicy ? { brokenPolicy: true } : {}),
  });
  const totals = result.rounds.map(
    (r) => `${r.label}: ${r.report.summary.checks.fail} failures, ${r.access.overExposed.length} over-exposed, ${r.access.underExposed.length} under-exposed`,
  );
  runtime.print(`multi-source harness ${result.ok ? 'passed' : 'FAILED'} — ${totals.join('; ')}`);
  if (!result.ok) runtime.setExitCode(1);
}

export function registerHarnessCommand(program: Command, runtime: KitRuntime): void {
  const command = program.command('harness');
  refuseSecretOption(command, '--mock-token', 'WM_MOCK_TOKEN');
  command
    .description(
      'End-to-end scenario: a generated organization in the work-management mock, synced by its adapter into a fresh staging database, ' +
        'served by the gateway, crawled like the platform, and every (user, file) access compared with the mock’s visibility oracle — ' +
        'before and after a round of changes (moves, a member leaving, deletions, a comment edit) and an incremental sync; ' +
        'when the mock loses events, after a full run as well. ' +
        'With --assistant, the closed loop instead: the platform simulator ingests the gateway and every member of the organization asks ' +
        'the assistant about tasks they may and may not see; leaked citations (files the oracle says the asker may not see), missed ones, ' +
        'how many sync + ingest cycles revoked access takes to disappear after the change round (a guest deactivated and a project member ' +
        'added too), and the Data API’s counts and the usage report against what the scenario recorded, file by file ' +
        '(docs/closed-loop-scenario.md). Exits 1 on any leak or failed check. ' +
        'With --multi-source, three sources feed one gateway: the work-management organization, a folder tree and a SQL database with an ' +
        'attribute policy, people in two or three of them; every (person, document) pair of the crawl is compared with each source’s own ' +
        'model, before and after attribute changes (docs/multi-source-scenario.md). Exits 1 on any over- or under-exposed pair.',
    )
    .option('--seed <seed>', 'organization generator seed', '7')
    .option('--tasks <n>', 'tasks in the generated organization', wholeNumber(50), 1200)
    .option('--mock-url <url>', 'use a running `mock work-management` instead of starting one (its token in WM_MOCK_TOKEN)')
    .option('--hostile', "keep the mock's (and, with --assistant, the platform simulator's) default rate limits on (slower, closer to the real services)")
    .option('--fault-rate <ratio>', 'share of the mock’s API requests answered 500/503 (0 to 1; with --mock-url set on the running mock)', parseRatio)
    .option('--event-loss-rate <ratio>', 'share of events the mock never delivers (0 to 1; with --mock-url set on the running mock)', parseRatio)
    .option(
      '--webhooks',
      'the gateway receives the mock’s webhooks (registered at start): each delivery asks for an incremental run, crawled and compared as a round of its own',
    )
    .option('--no-reconcile', 'turn access reconciliation off, to see what lost events cost')
    .option('--no-raw-ids', "crawl with percent-encoded ids (default: pasted in raw, as the platform's own tools send them)")
    .option(
      '--database-url <url>',
      'stage into this Postgres database, in a schema of its own dropped afterwards (default: HARNESS_DATABASE_URL, else a SQLite file); a URL with a password goes in HARNESS_DATABASE_URL instead',
      passwordlessUrl,
    )
    .option('--out <dir>', 'where the reports go (conformance HTML/JSON; with --assistant, assistant-report.json)', './harness-report')
    .option('--assistant', 'run the closed-loop scenario: the assistant’s answers, judged against the oracle')
    .option('--questions-per-user <n>', 'with --assistant: questions each member asks per round', wholeNumber(1), 4)
    .option('--probe-limit <n>', 'with --assistant: revoked (user, task) pairs asked about after each sync + ingest', wholeNumber(1), 300)
    .option(
      '--break-access <how>',
      'with --assistant, a self-test: serve every access list as the wildcard ("wildcard": the scenario must report leaks) or empty ("nobody": it must report missed citations); either way it must exit 1',
      parseBreak,
    )
    .option('--multi-source', 'run the multi-source scenario: work-management, filesystem and SQL (with an access policy) feeding one gateway')
    .option(
      '--break-policy',
      'with --multi-source, a self-test: sync the SQL source with a policy that forgets the clearance test; the scenario must then report over-exposed pairs and exit 1',
    )
    .action(async (flags: HarnessFlags) => {
      // The crawl's robustness probes make the gateway log every 4xx it answers: keep the scenario's output readable.
      const logger = createLogger({ level: runtime.env.LOG_LEVEL ?? 'error' });
      if (flags.multiSource) await runMultiSource(flags, logger, runtime);
      else await (flags.assistant ? runAssistant(flags, logger, runtime) : runCrawlHarness(flags, logger, runtime));
    });
}
