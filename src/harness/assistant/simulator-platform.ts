import { listenOnLoopback } from '../../lib/listen-on-loopback';
import { createPlatformSimulator } from '../../mocks/platform/create-platform-simulator';
import type { IngestSummary, PluginResourceRow, ScenarioPlatform, SeenAnswer } from './scenario-platform';

export interface SimulatorPlatformOptions {
  gateway: { url: string; key: string };
  /** Keep the simulator's default rate limits (429 + Retry-After) on. */
  hostile?: boolean;
}

export interface RunningPlatform {
  platform: ScenarioPlatform;
  url: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

async function call<T>(url: string, init: { method?: string; headers: Record<string, string>; body?: unknown }): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * The platform simulator started in this process on loopback, ingesting the scenario's gateway
 * over HTTP, and the scenario's view of it, over HTTP too: people ask through the Conversations
 * API with a token bound to their email (`user_email`), the way a chat front end would.
 */
export async function startSimulatorPlatform(o: SimulatorPlatformOptions): Promise<RunningPlatform> {
  const sim = createPlatformSimulator({ gateway: { baseUrl: o.gateway.url, auth: { kind: 'api-key', key: o.gateway.key } }, ...(o.hostile ? {} : { hostility: { rateLimitPerMinute: 0 } }) });
  const server = await listenOnLoopback(sim.app);
  const base = server.url;
  const { credentials } = sim;
  const tokens = new Map<string, { token: string; until: number }>();
  const token = async (email: string): Promise<string> => {
    const cached = tokens.get(email);
    if (cached && cached.until > Date.now()) return cached.token;
    const { clientId, clientSecret } = credentials.clients.conversations;
    const res = await call<{ access_token: string; expires_in: number }>(`${base}/oauth/v1/token`, { headers: {}, body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, user_email: email } });
    tokens.set(email, { token: res.access_token, until: Date.now() + (res.expires_in - 60) * 1000 });
    return res.access_token;
  };
  const conversationHeaders = async (email: string) => ({ authorization: `Bearer ${await token(email)}`, 'assistant-name': credentials.assistantName });
  const asked = new Map<string, string>();
  const dataHeaders = { authorization: `Bearer ${credentials.dataApiKey}` };
  const data = `${base}/export/v1/records/plugin-resources`;

  const platform: ScenarioPlatform = {
    ingest: () => call<IngestSummary>(`${base}/_admin/ingest`, { headers: { authorization: `Bearer ${credentials.adminKey}` }, body: {} }),
    async ask(email, text): Promise<SeenAnswer> {
      const headers = await conversationHeaders(email);
      const conversation = await call<{ conversation_id: string }>(`${base}/rest/v1/conversations`, { headers, body: {} });
      const response = await call<{ response_id: string; messages: Json[] }>(`${base}/rest/v1/conversations/${conversation.conversation_id}/responses`, { headers, body: { input: { text } } });
      const final = response.messages[response.messages.length - 1] as { message_id: string; citations?: Array<{ url: string }> | null; feedback?: { helpful: { callback_id: string }; unhelpful: { callback_id: string } } | null };
      asked.set(conversation.conversation_id, email);
      return {
        conversationId: conversation.conversation_id,
        responseId: response.response_id,
        messageId: final.message_id,
        citationUrls: (final.citations ?? []).map((c) => c.url),
        feedback: final.feedback ? { helpful: final.feedback.helpful.callback_id, unhelpful: final.feedback.unhelpful.callback_id } : null,
      };
    },
    async feedback(answer, rating): Promise<void> {
      if (!answer.feedback) throw new Error(`the reply ${answer.messageId} takes no feedback`);
      const headers = await conversationHeaders(asked.get(answer.conversationId) ?? 'scenario@platform.example');
      await call(`${base}/rest/v1/conversations/${answer.conversationId}/responses/${answer.responseId}/messages/${answer.messageId}/feedback`, { headers, body: { callback_id: answer.feedback[rating] } });
    },
    async pluginResources(filter): Promise<PluginResourceRow[]> {
      const rows: PluginResourceRow[] = [];
      let next: string | undefined = filter === undefined ? data : `${data}?$filter=${encodeURIComponent(filter)}`;
      while (next) {
        const page: { value: PluginResourceRow[]; '@odata.nextLink'?: string } = await call(next, { headers: dataHeaders });
        rows.push(...page.value);
        next = page['@odata.nextLink'];
      }
      return rows;
    },
    async count(filter): Promise<number> {
      const res = await fetch(`${data}/$count${filter ? `?$filter=${encodeURIComponent(filter)}` : ''}`, { headers: dataHeaders });
      const text = await res.text();
      if (!res.ok || !/^\d+$/.test(text.trim())) throw new Error(`count: ${res.status} ${text.slice(0, 200)}`);
      return Number(text);
    },
  };
  return {
    platform,
    url: base,
    close: async () => {
      sim.close();
      await server.close();
    },
  };
}
