import type { RequestHandler } from 'express';
import type { Config } from '../config/config-schema';
import type { AdminTokens } from '../console/admin-auth';
import { BlobHealth } from '../console/blob-health';
import { CONSOLE_PAGES } from '../console/console-pages';
import { CONSOLE_PATH, consoleRouter } from '../console/console-router';
import { CONSOLE_ADMIN_SCOPE } from '../http/security/access-tokens';
import { accessTokensOf } from '../http/security/access-tokens-of';
import { parseOAuthClients } from '../http/security/client-secrets';
import type { Logger } from '../logging/create-logger';
import { loadPolicy } from '../policies/load-policy';
import type { Policy } from '../policies/policy-types';
import { consoleSyncRequests } from './console-sync-requests';
import type { Staging } from './open-staging';
import type { Runtime } from './runtime';

/**
 * The operator console, as `serve` mounts it when `CONSOLE_ENABLED` (this module, and the
 * console's with their libraries, are imported only then). `close` stops what its actions started.
 */
export function consoleMount(
  config: Config,
  runtime: Runtime,
  logger: Logger,
  staging: Staging,
  crawlKeys: readonly string[],
  skipTokenSecret: string,
): { path: string; router: RequestHandler; close(): Promise<void> } {
  if (!config.consoleAdminKey && config.consoleAdminClients.length === 0)
    throw new Error('CONSOLE_ADMIN_KEY or CONSOLE_ADMIN_CLIENTS is required when CONSOLE_ENABLED=true');
  const syncs = consoleSyncRequests(config, runtime, logger, staging);
  const router = consoleRouter({
    ctx: {
      db: staging.db,
      config,
      logger: logger.child({ console: true }),
      now: () => new Date(),
      requestSync: syncs.request,
      blobHealth: new BlobHealth(staging.db, staging.blobs),
      accessPolicies: policiesOf(config, logger),
    },
    pages: CONSOLE_PAGES,
    ...(config.consoleAdminKey ? { adminKey: config.consoleAdminKey } : {}),
    ...adminTokensOf(config, skipTokenSecret),
    crawlKeys,
    secure: Boolean(config.tlsCertFile) || (config.publicBaseUrl?.startsWith('https:') ?? false),
  });
  return { path: CONSOLE_PATH, router, close: () => syncs.close() };
}

/** How the console verifies its admin clients' tokens (`CONSOLE_ADMIN_CLIENTS`): as `/v1` verifies a crawler's, with the admin scope. */
function adminTokensOf(config: Config, skipTokenSecret: string): { adminTokens?: AdminTokens } {
  const admins = new Set(config.consoleAdminClients);
  const tokens = admins.size > 0 ? accessTokensOf(config, parseOAuthClients(config.oauthClients), skipTokenSecret) : undefined;
  if (!tokens) return {};
  return {
    adminTokens: async (token) => {
      const clientId = await tokens.verifyScope(token, CONSOLE_ADMIN_SCOPE);
      return clientId !== undefined && admins.has(clientId) ? clientId : undefined;
    },
  };
}

/**
 * The access policies of `ACCESS_POLICIES`, read once when the access explorer first needs them:
 * a file that does not load is logged and left out (the explorer then names the policy's
 * fingerprint without the rule), the console still answers.
 */
function policiesOf(config: Config, logger: Logger): () => Promise<Readonly<Record<string, Policy>>> {
  let loaded: Promise<Record<string, Policy>> | undefined;
  const load = async (): Promise<Record<string, Policy>> => {
    const out: Record<string, Policy> = {};
    for (const [source, file] of Object.entries(config.accessPolicies)) {
      try {
        out[source] = await loadPolicy(file);
      } catch (error) {
        logger.warn({ source, err: error }, 'console: the access policy does not load; the access explorer shows its groups without the rule');
      }
    }
    return out;
  };
  return () => (loaded ??= load());
}
