/**
 * The webhooks a deployment has at the work-management service, for `webhooks list` and `webhooks
 * delete`: `GET /webhooks?workspace=` (every page) and `DELETE /webhooks/{gid}`, and the workspace
 * they belong to (the configured one, else the first organization the token sees, as the adapter
 * picks it). Registering is `registerWorkManagementWebhook`.
 */
import type { Logger } from '../../logging/create-logger';
import { OutboundHttpClient } from '../../outbound-http/outbound-http-client';

export interface WebhookAccess {
  /** The API base, e.g. `https://app.example/api/1.0`. */
  baseUrl: string;
  /** Secret: sent only to `baseUrl`'s origin, never logged. */
  token: string;
  logger: Logger;
}

export interface WorkManagementWebhook {
  gid: string;
  target: string;
  active: boolean;
  resource: { gid: string; resource_type?: string; name?: string };
  last_success_at: string | null;
  last_failure_at: string | null;
}

const WEBHOOK_FIELDS = 'gid,target,active,resource,resource.name,last_success_at,last_failure_at';

function clientOf(access: WebhookAccess): OutboundHttpClient {
  return new OutboundHttpClient({ baseUrl: access.baseUrl, logger: access.logger, headers: () => ({ authorization: `Bearer ${access.token}` }) });
}

/** The configured workspace, else the first organization the token sees (else its first workspace). */
export async function webhookWorkspace(access: WebhookAccess, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
  const { data } = await clientOf(access).json<{ data: Array<{ gid: string; is_organization?: boolean }> }>('GET', '/workspaces', {
    query: { opt_fields: 'gid,is_organization', limit: 100 },
  });
  const chosen = data.find((w) => w.is_organization === true) ?? data[0];
  if (!chosen) throw new Error('The token sees no workspace: set WORK_MANAGEMENT_WORKSPACE or use a token of a workspace member');
  return chosen.gid;
}

/** Every webhook of the workspace. */
export async function listWorkManagementWebhooks(access: WebhookAccess, workspace: string): Promise<WorkManagementWebhook[]> {
  const client = clientOf(access);
  const out: WorkManagementWebhook[] = [];
  let offset: string | undefined;
  do {
    const page = await client.json<{ data: WorkManagementWebhook[]; next_page?: { offset: string } | null }>('GET', '/webhooks', {
      query: { workspace, opt_fields: WEBHOOK_FIELDS, limit: 100, offset },
    });
    out.push(...page.data);
    offset = page.next_page?.offset;
  } while (offset);
  return out;
}

export async function deleteWorkManagementWebhook(access: WebhookAccess, gid: string): Promise<void> {
  await clientOf(access).json('DELETE', `/webhooks/${encodeURIComponent(gid)}`);
}
