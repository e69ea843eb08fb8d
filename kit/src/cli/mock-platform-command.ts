import { InvalidArgumentError, type Command } from 'commander';
import { refuseSecretOption, writeCredentialsFile } from './kit-secrets';
import { parseRatio } from './parse-ratio';
import type { KitRuntime } from './kit-runtime';
import { serveMock, wholeNumber, withListenOptions } from './serve-mock';

const list = (text: string, previous: string[] = []): string[] => [
  ...previous,
  ...text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

interface PlatformFlags {
  port: number;
  host: string;
  gatewayUrl?: string;
  gatewayTokenUrl?: string;
  gatewayClientId?: string;
  ingestEvery?: number;
  assistantName?: string;
  credentialsFile: string;
  rateLimit?: number;
  faultRate: number;
  pilot: string[];
  remove: string[];
}

/** The secrets this command reads, and the environment variable each comes from. */
const SECRETS = {
  gatewayKey: 'GATEWAY_API_KEY',
  gatewayClientSecret: 'GATEWAY_CLIENT_SECRET',
  adminKey: 'MOCK_PLATFORM_ADMIN_KEY',
  dataApiKey: 'MOCK_PLATFORM_DATA_API_KEY',
  messageApiKey: 'MOCK_PLATFORM_MESSAGE_API_KEY',
} as const;
type Secrets = Partial<Record<keyof typeof SECRETS, string>>;
const CLI_SPELLING: Record<keyof typeof SECRETS, string> = {
  gatewayKey: '--gateway-key',
  gatewayClientSecret: '--gateway-client-secret',
  adminKey: '--admin-key',
  dataApiKey: '--data-api-key',
  messageApiKey: '--message-api-key',
};

function secretsOf(env: Record<string, string | undefined>): Secrets {
  return Object.fromEntries(Object.entries(SECRETS).flatMap(([name, variable]) => (env[variable] ? [[name, env[variable]]] : [])));
}

function gatewayOf(flags: PlatformFlags, secrets: Secrets) {
  if (!flags.gatewayUrl) {
    if (flags.gatewayTokenUrl) throw new InvalidArgumentError('--gateway-token-url needs --gateway-url');
    return undefined;
  }
  if (flags.gatewayTokenUrl) {
    if (!flags.gatewayClientId || !secrets.gatewayClientSecret)
      throw new InvalidArgumentError('--gateway-token-url needs --gateway-client-id and GATEWAY_CLIENT_SECRET in the environment');
    return {
      baseUrl: flags.gatewayUrl,
      auth: { kind: 'oauth' as const, tokenUrl: flags.gatewayTokenUrl, clientId: flags.gatewayClientId, clientSecret: secrets.gatewayClientSecret },
    };
  }
  if (!secrets.gatewayKey)
    throw new InvalidArgumentError(
      '--gateway-url needs GATEWAY_API_KEY in the environment (or --gateway-token-url, --gateway-client-id and GATEWAY_CLIENT_SECRET)',
    );
  return { baseUrl: flags.gatewayUrl, auth: { kind: 'api-key' as const, key: secrets.gatewayKey } };
}

/**
 * `mock platform`: the platform simulator (kit/src/mocks/platform/README.md) on loopback. With a
 * gateway it ingests it at start (and every --ingest-every seconds); without one it serves a small
 * generated corpus. Prints its base URLs; its credentials (given in the environment, or generated)
 * go to --credentials-file, readable by its owner only.
 */
export function registerMockPlatformCommand(mock: Command, runtime: KitRuntime): void {
  const command = mock
    .command('platform')
    .description(
      'Simulate the assistant platform: ingest a gateway (or a generated corpus), answer questions with citations of files the asker may see, ' +
        'and serve the Conversations, Data and Message APIs by their lifecycle stage. Admin paths under /_admin (POST /_admin/ask, POST /_admin/ingest).',
    );
  withListenOptions(command, 4020)
    .option('--gateway-url <url>', 'base URL of the gateway to ingest (without it: a generated corpus)')
    .option(
      '--gateway-token-url <url>',
      'OAuth client-credentials token endpoint of the gateway (instead of GATEWAY_API_KEY; the secret in GATEWAY_CLIENT_SECRET)',
    )
    .option('--gateway-client-id <id>', 'OAuth client id')
    .option('--ingest-every <seconds>', 'ingest again on this schedule (default: only at start and on POST /_admin/ingest)', wholeNumber('--ingest-every', 1))
    .option('--assistant-name <name>', 'the Assistant-Name the Conversations API requires')
    .option('--credentials-file <file>', 'where the API keys, client secrets and admin key go (JSON, mode 600)', 'data/mock-platform-credentials.json')
    .option('--rate-limit <perMinute>', 'requests per caller per minute on every API before 429 (0: off)', wholeNumber('--rate-limit', 0))
    .option('--fault-rate <ratio>', 'share of API requests answered 500, the server error the platform documents (0 to 1)', parseRatio, 0)
    .option('--pilot <versions>', 'experimental versions the tenant pilots, comma-separated', list, [])
    .option('--remove <ids>', 'lifecycle rows to serve as removed (410), comma-separated, e.g. message.send@v1beta1', list, [])
    .addHelpText(
      'after',
      '\nSecrets come from the environment only: GATEWAY_API_KEY (the key sent to the gateway), GATEWAY_CLIENT_SECRET (with --gateway-token-url), ' +
        'MOCK_PLATFORM_ADMIN_KEY, MOCK_PLATFORM_DATA_API_KEY, MOCK_PLATFORM_MESSAGE_API_KEY (each generated when unset).',
    )
    .action(async (flags: PlatformFlags) => {
      const secrets = secretsOf(runtime.env);
      const gateway = gatewayOf(flags, secrets);
      const { createPlatformSimulator } = await import('../mocks/platform/create-platform-simulator');
      const sim = createPlatformSimulator({
        ...(gateway ? { gateway } : {}),
        ...(flags.ingestEvery ? { ingestEveryMs: flags.ingestEvery * 1000 } : {}),
        credentials: {
          ...(flags.assistantName ? { assistantName: flags.assistantName } : {}),
          ...(secrets.adminKey ? { adminKey: secrets.adminKey } : {}),
          ...(secrets.dataApiKey ? { dataApiKey: secrets.dataApiKey } : {}),
          ...(secrets.messageApiKey ? { messageApiKey: secrets.messageApiKey } : {}),
        },
        hostility: { faultRate: flags.faultRate, ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}) },
        settings: {
          lifecycle: Object.fromEntries(flags.remove.map((id) => [id, 'removed' as const])),
          ...(flags.pilot.length ? { pilotVersions: flags.pilot } : {}),
        },
      });
      const base = await serveMock(runtime, sim.app, flags, () => sim.close());
      const c = sim.credentials;
      const file = writeCredentialsFile(flags.credentialsFile, { ...c });
      runtime.print(`Platform simulator listening on ${base}`);
      runtime.print(`Conversations API: ${base}/rest/v1 (deprecated: ${base}/assistant/v1), Assistant-Name: ${c.assistantName}`);
      runtime.print(`Data API: ${base}/export/v1/records (regions: ${base}/regions/<us|eu|ca|gov|jp|uk|us-prod4|us-prod3>/export/v1/records)`);
      runtime.print(`Message API: ${base}/rest/v1/messages/send`);
      runtime.print(
        `Token endpoint: POST ${base}/oauth/v1/token; conversations client ${c.clients.conversations.clientId}, data client ${c.clients.data.clientId}`,
      );
      runtime.print(`Admin: ${base}/_admin (POST /ask, POST /ingest, GET /state)`);
      runtime.print(`Credentials (Data API and message API keys, client secrets, admin key): ${file} (readable by you only)`);
      if (gateway) {
        const report = await sim.ingest();
        runtime.print(
          report.status === 'succeeded'
            ? `Ingested ${gateway.baseUrl}: ${report.files} files, ${report.users} users, ${report.groups} groups (${report.failures.length} failures)`
            : `Ingest of ${gateway.baseUrl} failed: ${report.error ?? ''}`,
        );
      } else runtime.print('No --gateway-url: serving the generated corpus (users ada, ben, cai, dee @example.test; eve is inactive)');
    });
  for (const [name, variable] of Object.entries(SECRETS)) refuseSecretOption(command, CLI_SPELLING[name as keyof typeof SECRETS], variable);
}
