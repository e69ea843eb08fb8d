import { type Command, InvalidArgumentError } from 'commander';
import {
  accessInputFromCrawl,
  crawlForAccess,
  DEFAULT_REPORT_DIR,
  EffectiveAccess,
  isProfile,
  loadExpectations,
  PROFILES,
  preflightGateway,
  readReport,
  renderFileAccess,
  renderTerminalReport,
  renderUserAccess,
  runConformance,
  writeReports,
  type AuthForm,
  type ConformanceOptions,
  type CrawlRecord,
  type Profile,
} from '../conformance';
import { createLogger } from '../logging/create-logger';
import type { Runtime } from './runtime';
import { readSecretFile, refuseSecretOption } from './secret-options';
import { UsageError } from './usage-error';

const KEY_FILE_HINT = '--key-file <path> (a file only you can read)';

interface ConformanceFlags {
  url?: string;
  keyFile?: string;
  out: string;
  expect?: string;
  concurrency: number;
  oddTop: number;
  authForm: AuthForm;
  timeout: number;
  probes: boolean;
  insecure?: boolean;
  report?: string;
  json?: boolean;
  profile: Profile;
  rawIds?: boolean;
}

function positiveInteger(name: string, min = 1) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min) throw new InvalidArgumentError(`${name} takes a whole number of at least ${min}.`);
    return Number(value);
  };
}

function authForm(value: string): AuthForm {
  if (value !== 'bearer' && value !== 'bare') throw new InvalidArgumentError("use 'bearer' or 'bare'.");
  return value;
}

function profile(value: string): Profile {
  if (!isProfile(value)) throw new InvalidArgumentError(`use ${PROFILES.map((p) => `'${p}'`).join(' or ')}.`);
  return value;
}

function connection(flags: ConformanceFlags, runtime: Runtime): Omit<ConformanceOptions, 'profile'> {
  if (!flags.url) throw new UsageError('Give the gateway with --url <base URL> (e.g. --url http://localhost:3000).');
  const key = flags.keyFile ? readSecretFile(flags.keyFile, '--key-file') : (runtime.env.CONFORMANCE_API_KEY ?? runtime.env.GATEWAY_API_KEY);
  if (!key) throw new UsageError(`Give the API key in CONFORMANCE_API_KEY (or GATEWAY_API_KEY), or ${KEY_FILE_HINT}.`);
  let baseUrl = flags.url;
  // The platform's connector takes the gateway's base URL; the /v1 paths go below it.
  if (/\/v1\/?$/.test(baseUrl)) {
    baseUrl = baseUrl.replace(/\/v1\/?$/, '');
    runtime.print(`Note: --url is the base URL without /v1; using ${baseUrl}`);
  }
  return {
    baseUrl,
    key,
    authForm: flags.authForm,
    concurrency: flags.concurrency,
    timeoutMs: flags.timeout,
    ...(flags.insecure ? { insecure: true } : {}),
    ...(flags.rawIds ? { rawIds: true } : {}),
    logger: createLogger({ level: runtime.env.LOG_LEVEL ?? 'warn' }),
  };
}

/** Exit codes besides 0 (no check fails), 1 (a check fails) and 2 (usage): the crawl never started. */
const EXIT_UNREACHABLE = 3;
const EXIT_KEY_REFUSED = 4;

/** Where the key came from, so the line about a refused key names what to fix. */
function keySource(flags: ConformanceFlags, runtime: Runtime): string {
  if (flags.keyFile) return `--key-file ${flags.keyFile}`;
  return runtime.env.CONFORMANCE_API_KEY ? 'CONFORMANCE_API_KEY' : 'GATEWAY_API_KEY';
}

/**
 * One request before the crawl: a dead gateway or a refused key ends the command with one line
 * and its own exit code (and no reports), instead of a crawl of failures. True when the crawl may go on.
 */
async function gatewayAnswers(options: Omit<ConformanceOptions, 'profile'>, flags: ConformanceFlags, runtime: Runtime): Promise<boolean> {
  const answer = await preflightGateway(options);
  if (answer.ok) return true;
  if (answer.problem === 'unreachable') {
    runtime.print(`conformance: ${options.baseUrl} is unreachable: ${answer.reason}`);
    runtime.setExitCode(EXIT_UNREACHABLE);
  } else {
    runtime.print(`conformance: ${options.baseUrl} refused the key (401): check ${keySource(flags, runtime)}`);
    runtime.setExitCode(EXIT_KEY_REFUSED);
  }
  return false;
}

/** The crawl to answer access questions from: a saved report, or a fresh crawl (undefined when the gateway cannot be crawled). */
async function accessFrom(flags: ConformanceFlags, runtime: Runtime): Promise<{ access: EffectiveAccess; crawl: CrawlRecord } | undefined> {
  let crawl: CrawlRecord;
  if (flags.report) crawl = readReport(flags.report).crawl;
  else {
    const options = connection(flags, runtime);
    if (!(await gatewayAnswers(options, flags, runtime))) return undefined;
    crawl = await crawlForAccess(options);
  }
  return { crawl, access: new EffectiveAccess(accessInputFromCrawl(crawl)) };
}

const EXAMPLES = `
Examples (the key from the environment or a file, so no command line or log shows it):
  $ export CONFORMANCE_API_KEY="$(cat data/dev-api-key)"
  $ content-gateway conformance --url http://localhost:3000
  $ content-gateway conformance --url http://localhost:3000 --key-file data/dev-api-key
  $ content-gateway conformance --url https://gw.example.com --expect access.yaml --out ./reports
  $ content-gateway conformance --url http://localhost:3000 --profile strict --raw-ids
  $ content-gateway conformance who-can-see 'hr:salary-bands-2025' --report conformance-report/conformance-report.json
  $ content-gateway conformance what-can ana@example.com see --url http://localhost:3000

Profiles: 'platform' (default) judges by what the platform requires and documents (its spec, its
validator, its sample server): a gateway written from the platform's own spec passes, and what the
platform tolerates is at most a warning. 'strict' holds the gateway to this project's own contract
(openapi/content-gateway.yaml). --raw-ids pastes ids into paths unencoded, as the platform's tools do.

Exit codes: 0 when no check fails; 1 when one does (or who-can-see / what-can find nothing);
2 when what-can is misused; 3 when the gateway is unreachable (nothing listening, DNS, TLS, timeout);
4 when it refuses the key (401). On 3 and 4 the command stops before crawling: one line, no report.

Inactive users never count as able to see; access answers list them apart. Only GET requests are
sent; nothing on the gateway changes.`;

/** The crawl itself: check the gateway, print the summary, write the reports. */
async function checkGateway(flags: ConformanceFlags, runtime: Runtime): Promise<void> {
  const expectations = flags.expect ? loadExpectations(flags.expect) : undefined;
  const options = connection(flags, runtime);
  if (!(await gatewayAnswers(options, flags, runtime))) return;
  runtime.print(
    `Crawling ${options.baseUrl} with up to ${flags.concurrency} requests in flight, ids ${flags.rawIds ? 'raw' : 'percent-encoded'}, judged by the ${flags.profile} profile…`,
  );
  const report = await runConformance({
    ...options,
    profile: flags.profile,
    oddTop: flags.oddTop,
    probes: flags.probes,
    ...(expectations ? { expectations } : {}),
  });
  const paths = writeReports(report, flags.out);
  runtime.print(renderTerminalReport(report, { reportPaths: paths }));
  if (!report.summary.ok) runtime.setExitCode(1);
}

/** `conformance who-can-see <file-id>`. */
function registerWhoCanSee(command: Command, runtime: Runtime): void {
  command
    .command('who-can-see')
    .argument('<file-id>', 'the file id, as /v1/files lists it')
    .description('Crawl (or read --report) and list the users, by email, who can see a file: nested groups and GROUP * expanded; inactive users listed apart.')
    .action(async (fileId: string, _opts: unknown, cmd: Command) => {
      const flags = cmd.optsWithGlobals<ConformanceFlags>();
      const from = await accessFrom(flags, runtime);
      if (!from) return;
      const answer = from.access.whoCanSee(fileId);
      if (!answer) {
        runtime.print(`File ${fileId} is not served by the gateway.`);
        runtime.setExitCode(1);
        return;
      }
      runtime.print(flags.json ? JSON.stringify(answer, null, 2) : renderFileAccess(answer));
    });
}

/** `conformance what-can <email> see`. */
function registerWhatCan(command: Command, runtime: Runtime): void {
  command
    .command('what-can')
    .argument('<email>', "the user's primary_email_addr (or a user id)")
    .argument('[see]', 'the word "see", for reading aloud')
    .description('Crawl (or read --report) and list the files a user can see, with the entry that grants each.')
    .action(async (email: string, see: string | undefined, _opts: unknown, cmd: Command) => {
      if (see !== undefined && see !== 'see') {
        runtime.print(`Usage: conformance what-can <email> see (got '${see}' after the email).`);
        runtime.setExitCode(2);
        return;
      }
      const flags = cmd.optsWithGlobals<ConformanceFlags>();
      const from = await accessFrom(flags, runtime);
      if (!from) return;
      const answer = from.access.whatCanSee(email);
      if (!answer) {
        runtime.print(`No user with email or id ${email} is served by the gateway.`);
        runtime.setExitCode(1);
        return;
      }
      runtime.print(flags.json ? JSON.stringify(answer, null, 2) : renderUserAccess(email, answer));
    });
}

export function registerConformanceCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command('conformance')
    .description(
      'Check a gateway (in any language) over HTTP, the way the platform crawls it: contract, auth, paging, files and downloads, access lists, groups and users, robustness, rate limits. Prints a summary and writes JSON and HTML reports.',
    )
    .option('--url <base>', 'base URL of the gateway under test (the /v1 paths go below it)')
    .option('--key-file <path>', 'file holding the API key (mode 600); else CONFORMANCE_API_KEY or GATEWAY_API_KEY in the environment')
    .option('--out <dir>', 'directory for conformance-report.json and conformance-report.html', `./${DEFAULT_REPORT_DIR}`)
    .option('--expect <file>', 'expectations file (YAML or JSON): emails that can and cannot see given files')
    .option('--concurrency <n>', 'requests in flight at most (the platform uses up to 20)', positiveInteger('--concurrency'), 20)
    .option('--odd-top <n>', 'odd page size for the second files crawl (0 skips it)', positiveInteger('--odd-top', 0), 7)
    .option('--auth-form <form>', "Authorization form the crawl sends: 'bearer' or 'bare' (the other is probed)", authForm, 'bearer' as AuthForm)
    .option('--timeout <ms>', 'per-request timeout in milliseconds', positiveInteger('--timeout'), 30_000)
    .option('--no-probes', 'skip the auth and robustness probes')
    .option('--insecure', 'accept a self-signed TLS certificate (a development gateway)')
    .option(
      '--profile <profile>',
      "the contract to judge by: 'platform' (what the platform requires) or 'strict' (this project's own)",
      profile,
      'platform' as Profile,
    )
    .option('--raw-ids', "paste ids into paths without percent-encoding, as the platform's own tools do")
    .option('--report <file>', 'who-can-see / what-can: answer from a saved JSON report instead of crawling')
    .option('--json', 'who-can-see / what-can: print the answer as JSON')
    .configureHelp({ showGlobalOptions: true });
  refuseSecretOption(command, '--key', `set CONFORMANCE_API_KEY (or GATEWAY_API_KEY) in the environment, or give ${KEY_FILE_HINT}`)
    .addHelpText('after', EXAMPLES)
    .action((flags: ConformanceFlags) => checkGateway(flags, runtime));
  registerWhoCanSee(command, runtime);
  registerWhatCan(command, runtime);
}
