import { chunks } from '../lib/chunks';
import { pickDefined } from '../lib/pick-defined';
import type { Logger } from '../logging/create-logger';
import { DeprecatedEndpointError, PlatformConfigError, PlatformRequestError, PlatformResponseError } from './platform-error';
import { PlatformHttp, type PlatformClientTransport } from './platform-http';

/** The Message API's send path (seed: legacy: keep using, no enhancements). */
export const MESSAGE_SEND_PATH = '/rest/v1/messages/send';
/** Deprecated since 2023-01-31 (seed: Versioning); the same key works on `MESSAGE_SEND_PATH`. */
export const DEPRECATED_MESSAGE_SEND_PATH = '/rest/v1beta1/messages/send';
export const MAX_RECIPIENTS = 500;
/** The Message API's published limit: 120 requests a minute per organization (reference §7.3). */
export const MESSAGE_API_REQUESTS_PER_MINUTE = 120;

export interface MessageApiClientOptions extends PlatformClientTransport {
  /** The platform's API host (no path). */
  apiBaseUrl: string;
  /** The message API key. */
  apiKey: string;
  /** Default `/rest/v1/messages/send`. The deprecated beta path is refused unless `forceDeprecated`. */
  path?: string;
  forceDeprecated?: boolean;
  /** Default 120, the published limit; 0 turns pacing off. */
  requestsPerMinute?: number;
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * A client of the Message API (seed: Message API (legacy) and migration; reference §7.3): `POST
 * {message, recipients}` with the message API key, at most 500 recipients a request (larger lists
 * are sent in several requests), paced under 120 requests a minute. A POST is repeated only when
 * the platform certainly did not act (429).
 */
export class MessageApiClient {
  private readonly http: PlatformHttp;
  private readonly logger: Logger;
  readonly path: string;

  constructor(options: MessageApiClientOptions) {
    this.logger = options.logger;
    this.path = `/${(options.path ?? MESSAGE_SEND_PATH).replace(/^\/+|\/+$/g, '')}`;
    if (this.path === DEPRECATED_MESSAGE_SEND_PATH) {
      if (!options.forceDeprecated) {
        throw new DeprecatedEndpointError(
          `POST ${DEPRECATED_MESSAGE_SEND_PATH} is deprecated since 2023-01-31 and not expected to work; use POST ${MESSAGE_SEND_PATH} (the same message API key works there), or force the deprecated path on purpose`,
          MESSAGE_SEND_PATH,
        );
      }
      this.logger.warn({ path: this.path }, `Message API: POST ${DEPRECATED_MESSAGE_SEND_PATH} is deprecated since 2023-01-31; use POST ${MESSAGE_SEND_PATH}`);
    }
    if (options.apiKey.trim() === '') throw new PlatformConfigError('The message API key is required');
    const perMinute = options.requestsPerMinute ?? MESSAGE_API_REQUESTS_PER_MINUTE;
    this.http = new PlatformHttp({
      baseUrl: options.apiBaseUrl,
      api: 'message',
      logger: options.logger,
      headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
      ...(perMinute > 0 ? { requestsPerMinute: perMinute } : {}),
      ...pickDefined(options, ['fetch', 'sleep', 'random', 'retryPolicy']),
    });
  }

  get requestCount(): number {
    return this.http.requestCount;
  }

  /** Sends `message` to every recipient; one request per 500 recipients. Resolves with the statuses the platform answered. */
  async send(message: string, recipients: readonly string[]): Promise<Array<'RECEIVED'>> {
    if (message.trim() === '') throw new PlatformRequestError('The message is empty');
    if (recipients.length === 0) throw new PlatformRequestError('No recipients');
    const bad = recipients.find((r) => !EMAIL.test(r));
    if (bad !== undefined) throw new PlatformRequestError(`Not an email address: ${JSON.stringify(bad)}`);
    const out: Array<'RECEIVED'> = [];
    for (const batch of chunks([...recipients], MAX_RECIPIENTS)) {
      const answer = await this.http.send('POST', this.path, { body: { message, recipients: batch } });
      let body: { data?: { status?: unknown }; warning?: unknown } | undefined;
      try {
        body = JSON.parse(answer.text) as typeof body;
      } catch {
        body = undefined;
      }
      if (body?.data?.status !== 'RECEIVED')
        throw new PlatformResponseError(`The Message API answered without status RECEIVED at ${answer.url}`, { status: answer.status, url: answer.url });
      if (typeof body.warning === 'string') this.logger.warn({ path: this.path }, `Message API: ${body.warning}`);
      out.push('RECEIVED');
    }
    return out;
  }
}
