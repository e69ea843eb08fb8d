import type { Command } from 'commander';
import {
  deleteWorkManagementWebhook,
  listWorkManagementWebhooks,
  registerWorkManagementWebhook,
  webhookWorkspace,
  workManagementAdapterFactory,
  workManagementConfigFromEnv,
  type WebhookAccess,
} from '../adapters/work-management';
import { loadConfig } from '../config/load-config';
import { createLogger, wantsPrettyLogs } from '../logging/create-logger';
import { WebhookSecretsRepository } from '../staging/repositories/webhook-secrets-repository';
import { withStaging } from './open-staging';
import type { Runtime } from './runtime';
import { webhookTarget } from './serve-webhooks';

/** How long the gateway accepts the service's handshake after a registration opened it. */
const HANDSHAKE_WINDOW_MS = 60_000;

/** The adapters that receive webhooks (only the work-management service sends them). */
const WEBHOOK_ADAPTERS = [workManagementAdapterFactory.name];

interface Target {
  access: WebhookAccess;
  source: string;
  configuredWorkspace: string | undefined;
}

type UsageError = (message: string) => never;

/** The adapter's client settings, from the environment only (its token is never an option). */
function targetOf(runtime: Runtime, adapter: string, usageError: UsageError): Target {
  if (!WEBHOOK_ADAPTERS.includes(adapter)) usageError(`'${adapter}' receives no webhooks; adapters that do: ${WEBHOOK_ADAPTERS.join(', ')}.`);
  const config = loadConfig(runtime.env);
  const logger = createLogger({ level: config.logLevel, pretty: wantsPrettyLogs(config.logFormat, runtime.interactive) });
  try {
    const wm = workManagementConfigFromEnv(runtime.env);
    return { access: { baseUrl: wm.baseUrl, token: wm.token, logger }, source: wm.sourceName, configuredWorkspace: wm.workspace };
  } catch (error) {
    return usageError(`the ${adapter} adapter is not configured: ${(error as Error).message}`);
  }
}

function usageErrorOf(command: Command): UsageError {
  return (message) => command.showHelpAfterError(false).error(`error: ${message}`, { exitCode: 1, code: 'content-gateway.webhooks' });
}

async function register(runtime: Runtime, adapter: string, flags: { resource?: string }, command: Command): Promise<void> {
  const usageError = usageErrorOf(command);
  const t = targetOf(runtime, adapter, usageError);
  const config = loadConfig(runtime.env);
  const publicUrl =
    config.webhooksPublicUrl ?? usageError('set WEBHOOKS_PUBLIC_URL to the URL the service reaches the gateway at (and run `serve` with it), then register.');
  const workspace = await webhookWorkspace(t.access, t.configuredWorkspace);
  const resource = flags.resource ?? workspace;
  const target = webhookTarget(publicUrl, t.source, resource);
  const key = { source: t.source, resource };
  const gid = await withStaging(config, async (staging) => {
    const secrets = new WebhookSecretsRepository(staging.db);
    try {
      return await registerWorkManagementWebhook({ ...t.access, workspace, resource, target }, () => secrets.expectHandshake(key, HANDSHAKE_WINDOW_MS));
    } catch (error) {
      // Left open, the window would let anyone who reaches the receiver set this webhook's secret in what is left of it.
      await secrets.closeHandshake(key);
      throw new Error(
        `could not register the webhook: ${(error as Error).message}\nThe service completes the registration by calling ${target}: \`serve\` must be running there with WEBHOOKS_PUBLIC_URL=${publicUrl} and this staging database.`,
        { cause: error },
      );
    }
  });
  runtime.print(`registered webhook ${gid}: ${resource === workspace ? `workspace ${workspace}` : `resource ${resource}`} → ${target}`);
}

async function list(runtime: Runtime, adapter: string, command: Command): Promise<void> {
  const t = targetOf(runtime, adapter, usageErrorOf(command));
  const hooks = await listWorkManagementWebhooks(t.access, await webhookWorkspace(t.access, t.configuredWorkspace));
  if (hooks.length === 0) runtime.print('No webhook.');
  for (const h of hooks)
    runtime.print(
      `${h.gid}  ${h.active ? 'active' : 'inactive'}  ${h.resource.resource_type ?? 'resource'} ${h.resource.gid} → ${h.target}  last success ${h.last_success_at ?? 'never'}, last failure ${h.last_failure_at ?? 'never'}`,
    );
}

async function remove(runtime: Runtime, adapter: string, gid: string, command: Command): Promise<void> {
  const usageError = usageErrorOf(command);
  if (!/^\d+$/.test(gid)) usageError(`expected a webhook gid (digits), not '${gid}'`);
  await deleteWorkManagementWebhook(targetOf(runtime, adapter, usageError).access, gid);
  runtime.print(`deleted webhook ${gid}`);
}

export function registerWebhooksCommand(program: Command, runtime: Runtime): void {
  const webhooks = program
    .command('webhooks')
    .description(
      "The source's webhooks at the service (work-management): register the gateway's WEBHOOKS_PUBLIC_URL, list, delete. The client settings and the token come from the environment (the adapter's settings), never from the command line.",
    );
  webhooks
    .command('register')
    .argument('<adapter>', `adapter (${WEBHOOK_ADAPTERS.join(', ')})`)
    .option('--resource <gid>', 'what to listen to (a project gid); default: the whole workspace')
    .description(
      "Register <WEBHOOKS_PUBLIC_URL>/webhooks/<source>?resource=<gid> at the service, replacing the resource's webhooks already pointing there (each resource's webhook keeps a secret of its own). `serve` must be running with the same WEBHOOKS_PUBLIC_URL and staging database: it answers the service's handshake, accepted for one minute from now.",
    )
    .action((adapter: string, flags: { resource?: string }, command: Command) => register(runtime, adapter, flags, command));
  webhooks
    .command('list')
    .argument('<adapter>', `adapter (${WEBHOOK_ADAPTERS.join(', ')})`)
    .description("List the webhooks of the adapter's workspace: target, resource, last success and failure.")
    .action((adapter: string, _flags: unknown, command: Command) => list(runtime, adapter, command));
  webhooks
    .command('delete')
    .argument('<adapter>', `adapter (${WEBHOOK_ADAPTERS.join(', ')})`)
    .argument('<gid>', 'webhook gid (`webhooks list` shows them)')
    .description('Delete one webhook at the service (deliveries stop; polling goes on).')
    .action((adapter: string, gid: string, _flags: unknown, command: Command) => remove(runtime, adapter, gid, command));
}
