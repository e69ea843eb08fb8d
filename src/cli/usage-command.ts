import fs from 'node:fs';
import { SingleBar } from 'cli-progress';
import { InvalidArgumentError, type Command } from 'commander';
import pino from 'pino';
import { createLogger, type Logger } from '../logging/create-logger';
import { DataApiClient } from '../platform/data-api-client';
import { DATA_API_REGION_NAMES, dataApiBaseUrl, tokenUrlFor } from '../platform/data-api-regions';
import { GatewayFilesClient } from '../platform/gateway-files-client';
import type { PlatformAuthConfig } from '../platform/platform-auth-config';
import { computeUsage, type UsagePhase } from '../platform/usage/compute-usage';
import { quote } from '../platform/usage/odata-filter';
import { renderUsageHtml } from '../platform/usage/usage-report-html';
import { renderUsageTerminal } from '../platform/usage/usage-report-terminal';
import type { Runtime } from './runtime';

interface UsageFlags {
  gatewayUrl?: string;
  region?: string;
  dataApiUrl?: string;
  tokenUrl?: string;
  source?: string;
  json?: boolean;
  html?: string;
  top: number;
  requestsPerMinute: number;
  perFile?: boolean;
}

function whole(name: string, min: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new InvalidArgumentError(`${name} takes a whole number of at least ${min}.`);
    return Number(text);
  };
}

const EXAMPLES = `
Keys come from the environment only (never type them on a command line):
  GATEWAY_API_KEY              the gateway's API key
  PLATFORM_DATA_API_KEY        the Data API key, or instead OAuth client credentials:
  PLATFORM_DATA_CLIENT_ID, PLATFORM_DATA_CLIENT_SECRET (token from <Data API host>/oauth/v1/token, or --token-url)
URLs may come from the environment too: USAGE_GATEWAY_URL, PLATFORM_REGION, PLATFORM_DATA_API_URL.

Examples:
  $ content-gateway usage --gateway-url https://gw.example.com --region eu
  $ content-gateway usage --gateway-url https://gw.example.com --region us --source my-connector --html usage.html
  $ content-gateway usage --gateway-url http://127.0.0.1:8080 --data-api-url http://127.0.0.1:4020/export/v1/records --json > usage.json

Regions: ${DATA_API_REGION_NAMES.join(', ')}.
Counting is cheap on the platform: file ids go in batches to the Data API's count endpoint, one
count settles a whole batch of unused files, busy batches are listed or split, whichever is fewer
requests; requests are paced (--requests-per-minute) and a 429 waits its Retry-After (60 s without one). The report
says how many platform requests it made. Only GET requests are sent; nothing changes anywhere.`;

function dataAuth(flags: UsageFlags, env: Runtime['env'], base: string): PlatformAuthConfig {
  if (env.PLATFORM_DATA_API_KEY) return { kind: 'api-key', key: env.PLATFORM_DATA_API_KEY };
  if (env.PLATFORM_DATA_CLIENT_ID && env.PLATFORM_DATA_CLIENT_SECRET) {
    return {
      kind: 'oauth',
      tokenUrl: flags.tokenUrl ?? env.PLATFORM_TOKEN_URL ?? tokenUrlFor(base),
      clientId: env.PLATFORM_DATA_CLIENT_ID,
      clientSecret: env.PLATFORM_DATA_CLIENT_SECRET,
    };
  }
  throw new Error('Give the Data API credentials in the environment: PLATFORM_DATA_API_KEY, or PLATFORM_DATA_CLIENT_ID and PLATFORM_DATA_CLIENT_SECRET.');
}

/** A bar on stderr while it counts; cli-progress draws nothing when stderr is not a terminal. */
function progressBar(): { update(phase: UsagePhase, done: number, total: number): void; stop(): void } {
  const bar = new SingleBar({ format: ' {phase} [{bar}] {value}/{total} files | {duration_formatted}', hideCursor: true });
  let started = false;
  return {
    update(phase, done, total) {
      if (!started) {
        bar.start(Math.max(1, total), done, { phase });
        started = true;
      }
      bar.setTotal(Math.max(1, total));
      bar.update(done, { phase });
    },
    stop: () => started && bar.stop(),
  };
}

function clients(flags: UsageFlags, env: Runtime['env'], logger: Logger) {
  const gatewayUrl = flags.gatewayUrl ?? env.USAGE_GATEWAY_URL;
  if (!gatewayUrl) throw new Error('Give the gateway with --gateway-url <base URL> (or USAGE_GATEWAY_URL).');
  const gatewayKey = env.GATEWAY_API_KEY;
  if (!gatewayKey) throw new Error("Give the gateway's API key in GATEWAY_API_KEY.");
  // Flags win over the environment; both flags at once are refused by dataApiBaseUrl (not both).
  const fromFlags = flags.dataApiUrl !== undefined || flags.region !== undefined;
  const fromEnv = env.PLATFORM_DATA_API_URL !== undefined ? { baseUrl: env.PLATFORM_DATA_API_URL } : { region: env.PLATFORM_REGION ?? 'us' };
  const base = dataApiBaseUrl(
    fromFlags
      ? { ...(flags.dataApiUrl !== undefined ? { baseUrl: flags.dataApiUrl } : {}), ...(flags.region !== undefined ? { region: flags.region } : {}) }
      : fromEnv,
  );
  const data = new DataApiClient({ baseUrl: base, auth: dataAuth(flags, env, base), logger, requestsPerMinute: flags.requestsPerMinute });
  return { gatewayUrl: gatewayUrl.replace(/\/v1\/?$/, ''), gateway: new GatewayFilesClient({ baseUrl: gatewayUrl, key: gatewayKey, logger }), data };
}

export function registerUsageCommand(program: Command, runtime: Runtime): void {
  program
    .command('usage')
    .description(
      "Which of a gateway's files the assistant surfaced and cited (with the feedback on those answers), which it never surfaced, and which cited files the gateway has since deleted. Terminal table, --json or an --html page with charts.",
    )
    .option('--gateway-url <base>', "the gateway's base URL (the /v1 paths go below it)")
    .option('--region <name>', `the Data API region: ${DATA_API_REGION_NAMES.join(', ')} (default us)`)
    .option('--data-api-url <url>', 'an explicit Data API base (…/export/v1/records) instead of a region')
    .option('--token-url <url>', 'the OAuth token endpoint (default: /oauth/v1/token on the Data API host)')
    .option(
      '--source <name>',
      "the connector's name in the platform's records (detail/source): counts only its records and finds cited files the gateway no longer lists",
    )
    .option('--json', 'print the report as JSON on stdout')
    .option('--html <file>', 'also write a self-contained HTML page with charts')
    .option('--top <n>', 'files in the terminal table', whole('--top', 1), 20)
    .option(
      '--requests-per-minute <n>',
      'pace Data API requests (the platform publishes no limit; a 429 still waits its Retry-After, or 60 s)',
      whole('--requests-per-minute', 1),
      300,
    )
    .option('--per-file', 'count naively, two counts per file (for comparison: many more platform requests)')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: UsageFlags) => {
      const logger = createLogger({ level: runtime.env.LOG_LEVEL ?? 'warn', destination: pino.destination(2) });
      const { gatewayUrl, gateway, data } = clients(flags, runtime.env, logger);
      const bar = progressBar();
      let report;
      try {
        report = await computeUsage({
          gateway,
          gatewayUrl,
          data,
          ...(flags.source ? { scope: `detail/source eq ${quote(flags.source)}` } : {}),
          ...(flags.perFile ? { strategy: 'per-file' as const } : {}),
          onProgress: bar.update,
        });
      } finally {
        bar.stop();
      }
      if (flags.html) fs.writeFileSync(flags.html, renderUsageHtml(report));
      runtime.print(
        flags.json ? JSON.stringify(report, null, 2) : renderUsageTerminal(report, { top: flags.top, ...(flags.html ? { htmlPath: flags.html } : {}) }),
      );
    });
}
