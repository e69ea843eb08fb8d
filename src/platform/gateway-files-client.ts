import { RemoteError } from '../outbound-http/remote-error';
import { followNextLinks, NextLinkError } from '../lib/follow-next-links';
import type { Logger } from '../logging/create-logger';
import { nextLinkFailure } from './next-link-failure';
import { PlatformResponseError } from './platform-error';
import { PlatformHttp } from './platform-http';

export interface GatewayFile {
  id: string;
  name: string;
  /** `deleted` for the tombstones a gateway keeps serving after a file goes away. */
  status: 'active' | 'deleted';
}

export interface GatewayFilesOptions {
  /** The gateway's base URL (without `/v1`). */
  baseUrl: string;
  /** The gateway's API key, sent as `Bearer <key>`. */
  key: string;
  logger: Logger;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

type Obj = Record<string, unknown>;

/** Pages read at most: a million files at 1,000 a page is a thousand; a chain past this never ends. */
const MAX_PAGES = 100_000;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every file a gateway lists (`GET /v1/files`, following `@odata.nextLink` as the platform does),
 * active ones and tombstones alike: what the operator tools compare the platform's records with.
 */
export class GatewayFilesClient {
  private readonly http: PlatformHttp;

  constructor(options: GatewayFilesOptions) {
    this.http = new PlatformHttp({
      baseUrl: options.baseUrl.replace(/\/v1\/?$/, ''),
      api: 'gateway',
      logger: options.logger,
      headers: () => ({ authorization: `Bearer ${options.key}` }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }

  get requestCount(): number {
    return this.http.requestCount;
  }

  async listFiles(onPage?: (files: number) => void): Promise<GatewayFile[]> {
    const files: GatewayFile[] = [];
    const walk = followNextLinks(
      async (link) => {
        const answer = link === undefined ? await this.http.send('GET', 'v1/files', { query: { $top: 1000 } }) : await this.http.send('GET', link);
        let body: unknown;
        try {
          body = JSON.parse(answer.text);
        } catch {
          body = undefined;
        }
        if (!isObj(body) || !Array.isArray(body.value))
          throw new PlatformResponseError(`The gateway answered without a value array at ${answer.url}`, { status: answer.status, url: answer.url });
        return { url: link ?? answer.url, body };
      },
      { maxPages: MAX_PAGES },
    );
    try {
      for await (const { body } of walk) {
        const value = body.value as unknown[];
        files.push(
          ...value
            .filter(isObj)
            .filter((f) => typeof f.id === 'string')
            .map((f): GatewayFile => ({
              id: f.id as string,
              name: typeof f.name === 'string' ? f.name : (f.id as string),
              status: f.status === 'deleted' ? 'deleted' : 'active',
            })),
        );
        onPage?.(files.length);
      }
    } catch (error) {
      if (error instanceof RemoteError) throw new PlatformResponseError(error.message.replace(/^Remote/, 'Gateway'), { cause: error });
      if (error instanceof NextLinkError) throw nextLinkFailure('Gateway', error);
      throw error;
    }
    return files;
  }
}
