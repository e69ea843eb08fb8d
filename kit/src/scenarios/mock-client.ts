import { paginateItems } from 'content-gateway';
import type { RetryPolicy } from 'content-gateway';
import { OutboundHttpClient, type HttpMethod } from 'content-gateway';
import { normalizeEmail } from 'content-gateway/lib';
import type { Logger } from 'content-gateway/logging';

export interface MockClientOptions {
  logger: Logger;
  /** Tests shorten the waits. */
  retryPolicy?: RetryPolicy;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * The harness's HTTP view of the work-management mock: its public API for picking what to change,
 * its private `/_oracle` for who may see what, and `/_admin` for changing the organization.
 * Every call goes through the source-HTTP client the adapters use, so a 429 waits out its
 * `Retry-After`, and 5xx answers and dropped connections are retried with backoff: the scenario
 * survives the faults it asks the mock to inject (`--fault-rate`). Writes to `/_admin` are
 * repeated only when the mock certainly did not act on them (429, connection refused).
 */
export class MockClient {
  private readonly http: OutboundHttpClient;

  constructor(
    readonly baseUrl: string,
    token: string,
    options: MockClientOptions,
  ) {
    this.http = new OutboundHttpClient({
      baseUrl,
      logger: options.logger,
      headers: () => ({ authorization: `Bearer ${token}` }),
      userAgent: 'content-gateway harness',
      ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }

  /** HTTP requests sent so far, retries included. */
  get requestCount(): number {
    return this.http.requestCount;
  }

  /** The parsed answer of a 2xx; other final statuses throw the matching `RemoteError`. */
  request<T>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    return this.http.json<T>(method, path, body === undefined ? {} : { body });
  }

  /** Every page of a public-API list (`limit`/`offset` paging). */
  async list<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    const sep = path.includes('?') ? '&' : '?';
    const pages = paginateItems<T>(async (offset) => {
      const page = await this.request<{ data: T[]; next_page: { offset: string } | null }>(
        'GET',
        `/api/1.0${path}${sep}limit=100${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`,
      );
      return { items: page.data, next: page.next_page?.offset ?? null };
    });
    for await (const item of pages) out.push(item);
    return out;
  }

  /** The oracle's verdict for every object of a type: gid → visible user gids. */
  async visibility(type: 'task' | 'attachment'): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { data: Array<{ gid: string; visible_to: string[] }>; next_offset: number | null } = await this.request(
        'GET',
        `/_oracle/visibility/all?type=${type}&offset=${offset}&limit=10000`,
      );
      for (const row of page.data) out.set(row.gid, row.visible_to);
      offset = page.next_offset;
    }
    return out;
  }

  /**
   * Maps the mock's user gids to normalised emails (how the gateway's served users are compared):
   * the workspace's users in one listing, any other gid (a user since removed) asked for alone.
   */
  async userEmails(workspace: string): Promise<(gids: readonly string[]) => Promise<string[]>> {
    const known = new Map<string, string>();
    for (const u of await this.list<{ gid: string; email?: string }>(`/users?workspace=${workspace}&opt_fields=email`))
      known.set(u.gid, normalizeEmail(u.email ?? u.gid));
    const emailOf = async (gid: string): Promise<string> => {
      let email = known.get(gid);
      if (email === undefined) {
        const { data } = await this.request<{ data: { gid: string; email?: string } }>('GET', `/api/1.0/users/${gid}?opt_fields=email`);
        email = normalizeEmail(data.email ?? gid);
        known.set(gid, email);
      }
      return email;
    };
    return async (gids) => {
      const out: string[] = [];
      for (const gid of gids) out.push(await emailOf(gid));
      return out;
    };
  }

  /** The sequence number of the mock's latest event, delivered or lost. */
  async eventHead(): Promise<number> {
    return (await this.request<{ data: { event_head: number } }>('GET', '/_admin/state')).data.event_head;
  }

  /** The events after `after` the mock delivers (those its event loss dropped are not among them). */
  async deliveredEvents(after: number): Promise<Array<{ seq: number; resource: { gid: string; resource_type: string } }>> {
    return (await this.request<{ data: Array<{ seq: number; resource: { gid: string; resource_type: string } }> }>('GET', `/_admin/events?after=${after}`))
      .data;
  }
}
