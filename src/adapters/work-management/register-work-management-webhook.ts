/**
 * Creates the webhook a deployment receives at `target` (the gateway's `/webhooks/<source>`):
 * `POST /webhooks {data: {resource, target}}` at the service, after `openHandshake` has told the
 * receiving side to expect the service's handshake (which happens while the create is in flight).
 * Webhooks already pointing at `target` for the resource are deleted first, so registering again
 * replaces, never doubles, the deliveries.
 */
import { OutboundHttpClient } from '../../outbound-http/outbound-http-client';
import type { Logger } from '../../logging/create-logger';

export interface WebhookRegistration {
  /** The API base, e.g. `https://app.example/api/1.0`. */
  baseUrl: string;
  token: string;
  workspace: string;
  /** What to listen to: a project, or the workspace (every event of the domain). */
  resource: string;
  /** The gateway's public URL of the receiving endpoint. */
  target: string;
  logger: Logger;
}

interface WebhookAnswer {
  gid: string;
  target: string;
  resource: { gid: string };
}

/** The gid of the created webhook. */
export async function registerWorkManagementWebhook(r: WebhookRegistration, openHandshake: () => Promise<void>): Promise<string> {
  const client = new OutboundHttpClient({ baseUrl: r.baseUrl, logger: r.logger, headers: () => ({ authorization: `Bearer ${r.token}` }) });
  const existing = await client.json<{ data: WebhookAnswer[] }>('GET', '/webhooks', { query: { workspace: r.workspace, resource: r.resource } });
  for (const hook of existing.data.filter((h) => h.target === r.target)) {
    await client.json('DELETE', `/webhooks/${encodeURIComponent(hook.gid)}`);
  }
  await openHandshake();
  const created = await client.json<{ data: WebhookAnswer }>('POST', '/webhooks', {
    body: { data: { resource: r.resource, target: r.target } },
    idempotent: false,
  });
  return created.data.gid;
}
