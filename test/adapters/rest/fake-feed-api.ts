import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A document at the fake source: who may read it, whether everyone may, when it was last updated (its clock), whether it is a tombstone. */
export interface FeedDoc {
  id: string;
  title: string;
  readers: string[];
  open: boolean;
  updated: number;
  deleted: boolean;
}

/** An entry of the change feed: its sequence number (the token), the document, and its state after the change. */
interface FeedEntry {
  seq: number;
  id: string;
  op: 'upsert' | 'delete';
  doc: FeedDoc;
}

/**
 * A stateful REST API with documents that change: listed by id two a page, filtered by an
 * `updated_after` lower bound (ISO), tombstones listed with `deleted: true`; each live document
 * at `/docs/<id>` (`{data}`; a deleted or unknown one answers 404); a change feed whose token is a
 * sequence number (events three a page; tokens older than `oldest` answer 410), at `/feed` with
 * each document's state, at `/feed/ids` with only `{resource: {gid}, action}` (a webhook's ids); users.
 * Every change goes through `upsert`/`remove`, which append to the feed unless `lose` says the
 * event is lost (the listing still shows the change). `onListPage` runs after each listing page is read (a change then comes after it).
 */
export interface FakeFeedApi {
  url: string;
  users: string[];
  docs: Map<string, FeedDoc>;
  /** The source's clock (ms); every change is stamped with it, and moves it on by a second. */
  clock: number;
  /** Tokens below this answer 410 Gone (the feed was pruned). */
  oldest: number;
  lose: (id: string) => boolean;
  onListPage: (page: number) => void;
  /** A status to answer instead of the real page, when it gives one (a listing that breaks). */
  fault: (url: URL) => number | undefined;
  requests: string[];
  upsert(id: string, change: Partial<Omit<FeedDoc, 'id' | 'updated' | 'deleted'>>): void;
  remove(id: string): void;
  /** Who may read each live document: the oracle. */
  visible(): Map<string, Set<string>>;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakeFeedApi(users: string[]): Promise<FakeFeedApi> {
  const feed: FeedEntry[] = [];
  const api: FakeFeedApi = {
    url: '',
    users,
    docs: new Map(),
    clock: Date.parse('2026-03-01T00:00:00Z'),
    oldest: 0,
    lose: () => false,
    onListPage: () => undefined,
    fault: () => undefined,
    requests: [],
    upsert(id, change) {
      api.clock += 1000;
      const before = api.docs.get(id) ?? { id, title: id, readers: [], open: false, updated: 0, deleted: false };
      const doc = { ...before, ...change, id, updated: api.clock, deleted: false };
      api.docs.set(id, doc);
      if (!api.lose(id)) feed.push({ seq: feed.length + 1, id, op: 'upsert', doc: { ...doc } });
    },
    remove(id) {
      const before = api.docs.get(id);
      if (!before) return;
      api.clock += 1000;
      const doc = { ...before, updated: api.clock, deleted: true };
      api.docs.set(id, doc);
      if (!api.lose(id)) feed.push({ seq: feed.length + 1, id, op: 'delete', doc: { ...doc } });
    },
    visible() {
      const out = new Map<string, Set<string>>();
      for (const doc of api.docs.values()) if (!doc.deleted) out.set(doc.id, new Set(doc.open ? users : doc.readers));
      return out;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const asRecord = (doc: FeedDoc) => ({ ...doc, updated: new Date(doc.updated).toISOString() });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    api.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const fault = api.fault(url);
    if (fault !== undefined) return send(res, fault, { error: 'broken' });
    if (url.pathname === '/users') return send(res, 200, { items: users.map((id) => ({ id, email: `${id}@example.com` })) });
    if (url.pathname === '/docs') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const after = url.searchParams.get('updated_after');
      const bound = after === null ? -Infinity : Date.parse(after);
      const all = [...api.docs.values()].filter((d) => d.updated >= bound).sort((a, b) => a.id.localeCompare(b.id));
      const body = { docs: all.slice((page - 1) * 2, page * 2).map(asRecord) };
      api.onListPage(page);
      return send(res, 200, body);
    }
    const one = /^\/docs\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const doc = api.docs.get(decodeURIComponent(one[1]!));
      return doc && !doc.deleted ? send(res, 200, { data: asRecord(doc) }) : send(res, 404, { error: 'no such document' });
    }
    if (url.pathname === '/feed' || url.pathname === '/feed/ids') {
      const since = url.searchParams.get('since');
      if (since === null) return send(res, 200, { events: [], next: String(feed.length) });
      if (Number(since) < api.oldest) return send(res, 410, { error: 'token expired' });
      const events = feed.filter((e) => e.seq > Number(since)).slice(0, 3);
      const next = events.length > 0 ? events[events.length - 1]!.seq : Number(since);
      const shown = events.map((e) =>
        url.pathname === '/feed' ? { ...e, doc: asRecord(e.doc) } : { resource: { gid: e.id }, action: e.op === 'delete' ? 'deleted' : 'changed' },
      );
      return send(res, 200, { events: shown, next: String(next), more: next < feed.length });
    }
    send(res, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
