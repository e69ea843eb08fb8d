import { listenOnLoopback } from 'content-gateway/lib';
import type { Logger } from 'content-gateway/logging';
import { createPlatformSimulator } from '../../mocks/platform/create-platform-simulator';
import type { ConversationMessage } from 'content-gateway/platform';
import { ConversationsClient } from 'content-gateway/platform';
import { DataApiClient } from 'content-gateway/platform';
import { GatewayFilesClient } from 'content-gateway/platform';
import { OAuthTokenSource } from 'content-gateway/platform';
import { PlatformError } from 'content-gateway/platform';
import { PlatformHttp } from 'content-gateway/platform';
import { computeUsage } from 'content-gateway/platform';
import type { ForeignRead, IngestSummary, PluginResourceRow, ScenarioPlatform, SeenAnswer } from './scenario-platform';

export interface SimulatorPlatformOptions {
  gateway: { url: string; key: string };
  /** Keep the simulator's default rate limits (429 + Retry-After) on. */
  hostile?: boolean;
  logger: Logger;
}

export interface RunningPlatform {
  platform: ScenarioPlatform;
  url: string;
  close(): Promise<void>;
}

/** The final assistant reply of a response (newest first: the first assistant message of it that takes feedback). */
function finalReply(messages: readonly ConversationMessage[], responseId: string): ConversationMessage {
  const mine = messages.filter((m) => m.response_id === responseId && m.actor === 'ASSISTANT');
  const final = mine.find((m) => m.feedback) ?? mine[0];
  if (!final) throw new Error(`the response ${responseId} has no assistant message`);
  return final;
}

const refusal = (error: unknown): boolean => error instanceof PlatformError && (error.status === 403 || error.status === 404);

/** Someone else lists an answer's conversation and rates the answer: both must be refused. */
async function readAs(conversations: ConversationsClient, answer: SeenAnswer): Promise<ForeignRead> {
  let citationUrls: string[] | undefined;
  let rated = false;
  try {
    citationUrls = (await conversations.listMessages(answer.conversationId)).flatMap((m) => (m.citations ?? []).map((c) => c.url));
  } catch (error) {
    if (!refusal(error)) throw error;
  }
  if (answer.feedback)
    try {
      await conversations.submitFeedback(answer, answer.feedback.unhelpful);
      rated = true;
    } catch (error) {
      if (!refusal(error)) throw error;
    }
  return citationUrls === undefined && !rated ? { refused: true } : { refused: false, citationUrls: citationUrls ?? [], rated };
}

/**
 * The platform simulator started in this process on loopback, ingesting the scenario's gateway
 * over HTTP, and the scenario's view of it, over HTTP too: people ask through the Conversations
 * API with a token bound to their email (`user_email`), the way a chat front end would.
 */
export async function startSimulatorPlatform(o: SimulatorPlatformOptions): Promise<RunningPlatform> {
  const sim = createPlatformSimulator({
    gateway: { baseUrl: o.gateway.url, auth: { kind: 'api-key', key: o.gateway.key } },
    ...(o.hostile ? {} : { hostility: { rateLimitPerMinute: 0 } }),
  });
  const server = await listenOnLoopback(sim.app);
  const base = server.url;
  const { credentials } = sim;
  const tokenUrl = `${base}/oauth/v1/token`;
  const client = credentials.clients.conversations;
  // A conversation is its asker's: each person reads and rates through a Conversations client whose
  // tokens act for them (`user_email`), as a chat front end does; a token for no person reads nothing.
  const people = new Map<string, { conversations: ConversationsClient; tokens: OAuthTokenSource }>();
  const personOf = (email: string) => {
    let person = people.get(email);
    if (!person) {
      const credentialsOf = { tokenUrl, clientId: client.clientId, clientSecret: client.clientSecret, userEmail: email };
      person = {
        conversations: new ConversationsClient({
          apiBaseUrl: base,
          assistantName: credentials.assistantName,
          auth: { kind: 'oauth', ...credentialsOf },
          logger: o.logger,
        }),
        tokens: new OAuthTokenSource(credentialsOf, { logger: o.logger }),
      };
      people.set(email, person);
    }
    return person;
  };
  const data = new DataApiClient({ baseUrl: `${base}/export/v1/records`, auth: { kind: 'api-key', key: credentials.dataApiKey }, logger: o.logger });
  const personHeaders = async (email: string) => ({
    authorization: `Bearer ${await personOf(email).tokens.token()}`,
    'assistant-name': credentials.assistantName,
  });
  // The start endpoints through the clients' HTTP layer: a 429 waits its Retry-After, 5xx back off.
  const start = new PlatformHttp({ baseUrl: `${base}/rest/v1`, api: 'conversations', logger: o.logger });
  const post = async <T>(path: string, email: string, body: unknown): Promise<T> =>
    JSON.parse((await start.send('POST', path, { body, headers: await personHeaders(email) })).text) as T;
  // An ingest of a large gateway takes minutes: the admin path gets an hour.
  const admin = new PlatformHttp({
    baseUrl: base,
    api: 'data',
    logger: o.logger,
    timeoutMs: 3_600_000,
    headers: () => ({ authorization: `Bearer ${credentials.adminKey}` }),
  });

  const platform: ScenarioPlatform = {
    ingest: async () => JSON.parse((await admin.send('POST', '/_admin/ingest', { body: {} })).text) as IngestSummary,
    async ask(email, text): Promise<SeenAnswer> {
      const { conversation_id: conversationId } = await post<{ conversation_id: string }>('conversations', email, {});
      const { response_id: responseId } = await post<{ response_id: string }>(`conversations/${encodeURIComponent(conversationId)}/responses`, email, {
        input: { text },
      });
      const final = finalReply(await personOf(email).conversations.listMessages(conversationId), responseId);
      return {
        email,
        conversationId,
        responseId,
        messageId: final.message_id,
        citationUrls: (final.citations ?? []).map((c) => c.url),
        feedback: final.feedback ? { helpful: final.feedback.helpful.callback_id, unhelpful: final.feedback.unhelpful.callback_id } : null,
      };
    },
    async feedback(answer, rating): Promise<void> {
      if (!answer.feedback) throw new Error(`the reply ${answer.messageId} takes no feedback`);
      await personOf(answer.email).conversations.submitFeedback(answer, answer.feedback[rating]);
    },
    readAs: (email, answer) => readAs(personOf(email).conversations, answer),
    async pluginResources(filter): Promise<PluginResourceRow[]> {
      const rows: PluginResourceRow[] = [];
      for await (const row of data.list<PluginResourceRow>('plugin-resources', filter === undefined ? {} : { filter })) rows.push(row);
      return rows;
    },
    count: (filter) => data.count(filter),
    usage: (gateway) =>
      computeUsage({ gateway: new GatewayFilesClient({ baseUrl: gateway.url, key: gateway.key, logger: o.logger }), gatewayUrl: gateway.url, data }),
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
