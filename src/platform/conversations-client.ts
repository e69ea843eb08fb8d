import { paginateItems } from '../outbound-http/paginate';
import { RemoteError } from '../outbound-http/remote-error';
import type { Logger } from '../logging/create-logger';
import type { ConversationMessage, FeedbackRating } from './conversation-message';
import { authorizationOf, type PlatformAuthConfig } from './platform-auth-config';
import { PlatformAuthError, PlatformConfigError, PlatformRequestError, PlatformResponseError } from './platform-error';
import { PlatformHttp, type PlatformAnswer, type PlatformClientTransport, type SendOptions } from './platform-http';
import type { OAuthTokenSource } from './oauth-token-source';

/** The Conversations API's stable base; `/assistant/v1` is deprecated (seed: Versioning). */
export const CONVERSATIONS_BASE = '/rest/v1';
export const DEPRECATED_CONVERSATIONS_BASE = '/assistant/v1';
export const MAX_ADDITIONAL_FEEDBACK = 1000;
export const MAX_PAGE_LIMIT = 100;

export interface ConversationsClientOptions extends PlatformClientTransport {
  /** The platform's API host, e.g. `https://api.example-region.platform` (no path). */
  apiBaseUrl: string;
  /** Default `/rest/v1`. */
  basePath?: string;
  /** The `Assistant-Name` header: the assistant configured for the organization. */
  assistantName: string;
  /** A JWT from OAuth client credentials (or an API key sent as a bearer token). */
  auth: PlatformAuthConfig;
  now?: () => number;
  /** Messages per page, 1–100 (the API's default when absent). */
  pageSize?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const seg = encodeURIComponent;

/**
 * A client of the Conversations API (seed: List conversation messages, Submit feedback; reference
 * §7.2). Reads a conversation's history page after page, sequentially (the demo app's advice: in
 * parallel the reads trip the rate limit), newest first. Warns once, through the logger, when it
 * is pointed at the deprecated `/assistant/v1` base or an answer carries the deprecated
 * `x-service-root-uuid` header.
 */
export class ConversationsClient {
  private readonly http: PlatformHttp;
  private readonly tokens: OAuthTokenSource | undefined;
  private readonly logger: Logger;
  private readonly pageSize: number | undefined;
  private warned = false;
  readonly basePath: string;

  constructor(options: ConversationsClientOptions) {
    this.logger = options.logger;
    this.basePath = `/${(options.basePath ?? CONVERSATIONS_BASE).replace(/^\/+|\/+$/g, '')}`;
    if (options.pageSize !== undefined && !(Number.isInteger(options.pageSize) && options.pageSize >= 1 && options.pageSize <= MAX_PAGE_LIMIT))
      throw new PlatformConfigError(`pageSize must be an integer from 1 to ${MAX_PAGE_LIMIT}`);
    if (options.assistantName.trim() === '') throw new PlatformConfigError('The Assistant-Name is required');
    this.pageSize = options.pageSize;
    const deps = {
      logger: options.logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    };
    const { header, tokens } = authorizationOf(options.auth, deps);
    this.tokens = tokens;
    const base = `${options.apiBaseUrl.replace(/\/+$/, '')}${this.basePath}`;
    this.http = new PlatformHttp({
      baseUrl: base,
      api: 'conversations',
      headers: async () => ({ authorization: await header(), 'assistant-name': options.assistantName }),
      ...deps,
      ...(options.random ? { random: options.random } : {}),
      ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
      ...(options.requestsPerMinute ? { requestsPerMinute: options.requestsPerMinute } : {}),
    });
    if (this.basePath === DEPRECATED_CONVERSATIONS_BASE)
      this.warnDeprecated(
        `the Conversations API base ${DEPRECATED_CONVERSATIONS_BASE} is deprecated; use ${CONVERSATIONS_BASE} (the same endpoints; new capabilities such as modals are served only there)`,
      );
  }

  get requestCount(): number {
    return this.http.requestCount + (this.tokens?.requestCount ?? 0);
  }

  /** A conversation's messages, newest first, fetched one page at a time as they are consumed. */
  messages(conversationId: string): AsyncGenerator<ConversationMessage, void, undefined> {
    const path = `conversations/${seg(conversationId)}/messages`;
    const walk = paginateItems<ConversationMessage>(async (cursor) => {
      const answer = await this.send('GET', path, { query: { cursor, limit: this.pageSize } });
      const body = parse(answer);
      if (!isObj(body) || !Array.isArray(body.messages))
        throw new PlatformResponseError(`The Conversations API answered without a messages array at ${answer.url}`, { status: answer.status, url: answer.url });
      const next = isObj(body.metadata) && typeof body.metadata.next_cursor === 'string' ? body.metadata.next_cursor : null;
      return { items: body.messages as ConversationMessage[], next };
    });
    return rethrowing(walk);
  }

  /** Every message of a conversation, newest first. */
  async listMessages(conversationId: string): Promise<ConversationMessage[]> {
    const out: ConversationMessage[] = [];
    for await (const message of this.messages(conversationId)) out.push(message);
    return out;
  }

  /**
   * Submits feedback on a final assistant message: `callbackId` is its `feedback.helpful` or
   * `feedback.unhelpful` callback id, passed back exactly; the platform decides the rating by it.
   */
  async submitFeedback(
    ids: { conversationId: string; responseId: string; messageId: string },
    callbackId: string,
    additionalFeedback?: string,
  ): Promise<'SUBMITTED'> {
    if (callbackId === '') throw new PlatformRequestError('callback_id is required');
    if (additionalFeedback !== undefined && additionalFeedback.length > MAX_ADDITIONAL_FEEDBACK)
      throw new PlatformRequestError(`additional_feedback is at most ${MAX_ADDITIONAL_FEEDBACK} characters`);
    const path = `conversations/${seg(ids.conversationId)}/responses/${seg(ids.responseId)}/messages/${seg(ids.messageId)}/feedback`;
    const answer = await this.send('POST', path, {
      body: { callback_id: callbackId, ...(additionalFeedback !== undefined ? { additional_feedback: additionalFeedback } : {}) },
    });
    const body = parse(answer);
    if (!isObj(body) || body.status !== 'SUBMITTED')
      throw new PlatformResponseError(`The feedback endpoint answered without status SUBMITTED at ${answer.url}`, { status: answer.status, url: answer.url });
    return 'SUBMITTED';
  }

  /** Submits a rating by the message's own callback ids. */
  rate(message: ConversationMessage, rating: FeedbackRating, additionalFeedback?: string): Promise<'SUBMITTED'> {
    if (!message.feedback) throw new PlatformRequestError(`Message ${message.message_id} does not support feedback`);
    return this.submitFeedback(
      { conversationId: message.conversation_id, responseId: message.response_id, messageId: message.message_id },
      message.feedback[rating].callback_id,
      additionalFeedback,
    );
  }

  private warnDeprecated(why: string): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn({ basePath: this.basePath }, `Conversations API: ${why}`);
  }

  private async send(method: 'GET' | 'POST', path: string, options: SendOptions): Promise<PlatformAnswer> {
    let answer: PlatformAnswer;
    try {
      answer = await this.http.send(method, path, options);
    } catch (error) {
      if (!(error instanceof PlatformAuthError) || !this.tokens?.hasToken) throw error;
      this.tokens.invalidate();
      answer = await this.http.send(method, path, options);
    }
    if (answer.headers.has('x-service-root-uuid')) {
      const where =
        this.basePath === CONVERSATIONS_BASE
          ? `although the client calls ${CONVERSATIONS_BASE}: something in between (a proxy, an API gateway) sends its requests on to the deprecated ${DEPRECATED_CONVERSATIONS_BASE}; point it at ${CONVERSATIONS_BASE}`
          : `this base (${this.basePath}) is deprecated; use ${CONVERSATIONS_BASE}`;
      this.warnDeprecated(`answers carry the deprecated x-service-root-uuid header ${where}`);
    }
    return answer;
  }
}

function parse(answer: PlatformAnswer): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}

async function* rethrowing<T>(walk: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  try {
    yield* walk;
  } catch (error) {
    if (error instanceof RemoteError) throw new PlatformResponseError(error.message.replace(/^Remote/, 'Conversations API'), { cause: error });
    throw error;
  }
}
