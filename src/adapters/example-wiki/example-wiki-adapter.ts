import { throwIfAborted } from '../../lib/abort-error';
import type { Adapter, AdapterContext, SyncEvent } from '../adapter';
// The only file of this adapter that speaks HTTP, through the shared outbound client: retries
// with backoff honouring Retry-After, typed errors, the token sent to the wiki's origin only.
import { paginateItems } from '../../outbound-http/paginate';
import { OutboundHttpClient } from '../../outbound-http/outbound-http-client';
import type { ExampleWikiConfig } from './example-wiki-config';
import { toFileRecord, toGroupRecord, toUserRecord, type WikiGroup, type WikiPage, type WikiUser } from './example-wiki-mapping';

/** The id prefix of everything it serves (`example-wiki:<id>`): never rename it once the platform has crawled it. */
export const EXAMPLE_WIKI_ADAPTER_NAME = 'example-wiki';

/** One page of a wiki listing: `GET /pages|users|groups?cursor=&limit=`; `next_cursor` is null on the last. */
interface Listing<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * A wiki's pages, users and groups. It only yields events; the sync engine decides what changed
 * and writes staging. It is full-only (no `changes`), so every run lists everything, and the
 * engine sweeps what a completed run did not yield: a page deleted in the wiki becomes a
 * tombstone, an account gone becomes inactive, without the adapter saying so.
 */
export function createExampleWikiAdapter(config: ExampleWikiConfig): Adapter {
  return {
    name: EXAMPLE_WIKI_ADAPTER_NAME,
    async *full(ctx: AdapterContext): AsyncGenerator<SyncEvent> {
      const http = new OutboundHttpClient({
        baseUrl: config.baseUrl,
        logger: ctx.logger,
        signal: ctx.signal,
        headers: () => ({ authorization: `Bearer ${config.token}` }),
      });
      const list = <T>(path: string): AsyncIterable<T> =>
        paginateItems(
          async (cursor) => {
            const page = await http.json<Listing<T>>('GET', path, { query: { cursor, limit: 100 } });
            return { items: page.items, next: page.next_cursor };
          },
          { signal: ctx.signal },
        );

      yield* events(list<WikiUser>('users'), ctx.signal, (user) => ({ type: 'user', user: toUserRecord(user) }));
      yield* events(list<WikiGroup>('groups'), ctx.signal, (group) => ({ type: 'group', group: toGroupRecord(group) }));
      yield* events(list<WikiPage>('pages'), ctx.signal, (page) => ({ type: 'file', file: toFileRecord(page) }));
    },
  };
}

/** Checks the signal before each item too, so a cancelled run stops within a listing page. */
async function* events<T>(items: AsyncIterable<T>, signal: AbortSignal, toEvent: (item: T) => SyncEvent): AsyncGenerator<SyncEvent> {
  for await (const item of items) {
    throwIfAborted(signal);
    yield toEvent(item);
  }
}
