import { InvalidArgumentError, type Command } from 'commander';
import { parseRatio } from './parse-ratio';
import type { KitRuntime } from './kit-runtime';
import { serveMock, wholeNumber, withListenOptions } from './serve-mock';

const list = (text: string, previous: string[] = []): string[] => [...previous, ...text.split(',').map((s) => s.trim()).filter(Boolean)];

interface PlatformFlags {
  port: number;
  host: string;
  gatewayUrl?: string;
  gatewayKey?: string;
  gatewayTokenUrl?: string;
  gatewayClientId?: string;
  gatewayClientSecret?: string;
  ingestEvery?: number;
  assistantName?: string;
  adminKey?: string;
  dataApiKey?: string;
  messageApiKey?: string;
  rateLimit?: number;
  faultRate: number;
  pilot: string[];
  remove: string[];
}

function gatewayOf(flags: PlatformFlags) {
  if (!flags.gatewayUrl) {
    if (flags.gatewayKey || flags.gatewayTokenUrl) throw new InvalidArgumentError('--gateway-key and --gateway-token-url need --gateway-url');
    return undefined;
  }
  if (flags.gatewayTokenUrl) {
    if (!flags.gatewayClientId || !flags.gatewayClientSecret) throw new InvalidArgumentError('--gateway-token-url needs --gateway-client-id and --gateway-client-secret');
    return { baseUrl: flags.gatewayUrl, auth: { kind: 'oauth' as const, tokenUrl: flags.gatewayTokenUrl, clientId: flags.gatewayClientId, clientSecret: flags.gatewayClientSecret } };
  }
  if (!flags.gatewayKey) throw new InvalidArgumentError('--gateway-url needs --gateway-key (or --gateway-token-url with a client id and secret)');
  return { baseUrl: flags.gatewayUrl, auth: { kind: 'api-key' as const, key: flags.gatewayKey } };
}

/**
 * `mock platform`: the platform simulator (kit/src/mocks/platform/README.md) on loopback. With a
 * gateway it ingests it at start (and every --ingest-every seconds); without one it serves a small
 * generated corpus. Prints its base URLs and every credential.
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
    .option('--gateway-key <key>', 'API key the connector sends as Bearer')
    .option('--gateway-token-url <url>', 'OAuth client-credentials token endpoint of the gateway (instead of a key)')
    .option('--gateway-client-id <id>', 'OAuth client id')
    .option('--gateway-client-secret <secret>', 'OAuth client secret')
    .option('--ingest-every <seconds>', 'ingest again on this schedule (default: only at start and on POST /_admin/ingest)', wholeNumber('--ingest-every', 1))
    .option('--assistant-name <name>', 'the Assistant-Name the Conversations API requires')
    .option('--admin-key <key>', 'bearer key of /_admin (default: generated)')
    .option('--data-api-key <key>', 'Data API key (default: generated)')
    .option('--message-api-key <key>', 'message API key (default: generated)')
    .option('--rate-limit <perMinute>', 'requests per caller per minute on every API before 429 (0: off)', wholeNumber('--rate-limit', 0))
    .option('--fault-rate <ratio>', 'share of API requests answered 500/503 (0 to 1)', parseRatio, 0)
    .option('--pilot <versions>', 'experimental versions the tenant pilots, comma-separated', list, [])
    .option('--remove <ids>', 'lifecycle rows to serve as removed (410), comma-separated, e.g. message.send@v1beta1', list, [])
    .action(async (flags: PlatformFlags) => {
      const gateway = gatewayOf(flags);
      const { createPlatformSimulator } = await import('../mocks/platform/create-platform-simulator');
      const sim = createPlatformSimulator({
        ...(gateway ? { gateway } : {}),
        ...(flags.ingestEvery ? { ingestEveryMs: flags.ingestEvery * 1000 } : {}),
        credentials: { ...(flags.assistantName ? { assistantName: flags.assistantName } : {}), ...(flags.adminKey ? { adminKey: flags.adminKey } : {}), ...(flags.dataApiKey ? { dataApiKey: flags.dataApiKey } : {}), ...(flags.messageApiKey ? { messageApiKey: flags.messageApiKey } : {}) },
        hostility: { faultRate: flags.faultRate, ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}) },
        settings: { lifecycle: Object.fromEntries(flags.remove.map((id) => [id, 'removed' as const])), ...(flags.pilot.length ? { pilotVersions: flags.pilot } : {}) },
      });
      const base = await serveMock(runtime, sim.app, flags, () => sim.close());
      const c = sim.credentials;
      runtime.print(`Platform simulator listening on ${base}`);
      runtime.print(`Conversations API: ${base}/rest/v1 (deprecated: ${base}/assistant/v1), Assistant-Name: ${c.assistantName}`);
      runtime.print(`Data API: ${base}/export/v1/records (regions: ${base}/regions/<us|eu|ca|gov|jp|uk|us-prod4|us-prod3>/export/v1/records), API key: ${c.dataApiKey}`);
      runtime.print(`Message API: ${base}/rest/v1/messages/send, message API key: ${c.messageApiKey}`);
      runtime.print(`Token endpoint: POST ${base}/oauth/v1/token; conversations client ${c.clients.conversations.clientId} / ${c.clients.conversations.clientSecret}; data client ${c.clients.data.clientId} / ${c.clients.data.clientSecret}`);
      runtime.print(`Admin: ${base}/_admin (POST /ask, POST /ingest, GET /state), admin key: ${c.adminKey}`);
      if (gateway) {
        const report = await sim.ingest();
        runtime.print(report.status === 'succeeded' ? `Ingested ${gateway.baseUrl}: ${report.files} files, ${report.users} users, ${report.groups} groups (${report.failures.length} failures)` : `Ingest of ${gateway.baseUrl} failed: ${report.error ?? ''}`);
      } else runtime.print('No --gateway-url: serving the generated corpus (users ada, ben, cai, dee @example.test; eve is inactive)');
    });
}
