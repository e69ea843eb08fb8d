import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { AccessEntry, AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { createRestAdapter, parseRestManifest } from '../../../src/adapters/rest';
import { silent } from './rest-gateway-fixture';
import { QUICK_RETRIES } from '../../helpers/quick-retries';

/**
 * Random API *shapes* with random failures on identity and access pages. Each case draws a
 * source (users, groups with nested groups, documents with access entries), a paging style per
 * listing (offset, page number, a cursor in the body or in a header, a next URL in the body, a
 * `Link` header), a page size, where a document's access comes from (a field of the record, or a
 * request per document), full or incremental (`listed_version`) runs, and one failing page
 * anywhere (an error status, a body that is not JSON, a 200 without the records, a page that
 * repeats, a cursor that points back). A stateful fake API on loopback serves it as the shape
 * says, and a manifest written from the same shape reads it through the real adapter.
 *
 * Whatever a run yields is whole: every group has all its direct members, every document all its
 * access entries, every user is real; an incremental run deletes only what is really gone; a
 * failure that landed is seen (the run fails, or the items it spoiled are failures). Seen failing
 * by hand: a paginator that took an error page for the listing's end (found at once: a users page
 * answering 500), and the paginator's repeated-page guard turned off (found: a page repeating the
 * one before it). Partition routers and child documents are not drawn here (the fixed-shape tests
 * and the work-management manifest's test cover them).
 */
type Style = 'offset' | 'page_number' | 'cursor' | 'header_cursor' | 'next_url' | 'link_header';
type Fault = 'status500' | 'status404' | 'html' | 'no_records' | 'repeat' | 'loop';
interface Principal {
  kind: 'user' | 'group';
  ref: string;
}
interface World {
  users: string[];
  groups: Array<{ id: string; members: Principal[] }>;
  docs: Array<{ id: string; title: string; rev: number; grants: Principal[] }>;
}
interface Shape {
  styles: { users: Style; groups: Style; members: Style; docs: Style; grants: Style };
  pageSize: number;
  accessBy: 'field' | 'request';
  incremental: boolean;
  concurrency: number;
}

const styleArb = fc.constantFrom<Style>('offset', 'page_number', 'cursor', 'header_cursor', 'next_url', 'link_header');
const shapeArb: fc.Arbitrary<Shape> = fc.record({
  styles: fc.record({ users: styleArb, groups: styleArb, members: styleArb, docs: styleArb, grants: styleArb }),
  pageSize: fc.integer({ min: 1, max: 3 }),
  accessBy: fc.constantFrom('field', 'request'),
  incremental: fc.boolean(),
  concurrency: fc.integer({ min: 1, max: 4 }),
});

const worldArb: fc.Arbitrary<World> = fc
  .record({
    users: fc.integer({ min: 1, max: 5 }),
    groups: fc.integer({ min: 0, max: 3 }),
    docs: fc.integer({ min: 1, max: 6 }),
    seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  })
  .map(({ users, groups, docs, seed }) => {
    let i = 0;
    const pick = (n: number): number => (seed[i++ % seed.length] ?? 0) % n;
    const emails = Array.from({ length: users }, (_, u) => `u${u}@example.com`);
    const groupIds = Array.from({ length: groups }, (_, g) => `g${g}`);
    const principals = (max: number, allowGroups: string[]): Principal[] => {
      const out = new Map<string, Principal>();
      for (let n = pick(max + 1); n > 0; n--) {
        const useGroup = allowGroups.length > 0 && pick(3) === 0;
        const p: Principal = useGroup
          ? { kind: 'group', ref: allowGroups[pick(allowGroups.length)] as string }
          : { kind: 'user', ref: emails[pick(emails.length)] as string };
        out.set(`${p.kind} ${p.ref}`, p);
      }
      return [...out.values()];
    };
    return {
      users: emails,
      // A group may hold the groups after it: nested, never a cycle.
      groups: groupIds.map((id, g) => ({ id, members: principals(4, groupIds.slice(g + 1)) })),
      docs: Array.from({ length: docs }, (_, d) => ({ id: `d${d}`, title: `Doc ${d}`, rev: 1, grants: principals(4, groupIds) })),
    };
  });

const faultArb = fc.record({
  listing: fc.constantFrom('/users', '/groups', 'members', '/docs', 'grants'),
  index: fc.nat({ max: 5 }),
  page: fc.nat({ max: 2 }),
  kind: fc.constantFrom<Fault>('status500', 'status404', 'html', 'no_records', 'repeat', 'loop'),
});
type FaultSpec = typeof faultArb extends fc.Arbitrary<infer T> ? T : never;

/** The fake API: every listing paged in the style the shape gives it; one page answered with the fault. */
class ShapedApi {
  world!: World;
  shape!: Shape;
  fault: FaultSpec | undefined;
  hit = false;
  private server = http.createServer((req, res) => this.answer(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private listing(path: string): { items: unknown[]; style: Style; kind: string; index: number } | undefined {
    const w = this.world;
    const s = this.shape.styles;
    if (path === '/users') return { items: w.users.map((email) => ({ email })), style: s.users, kind: '/users', index: 0 };
    if (path === '/groups') return { items: w.groups.map((g) => ({ id: g.id })), style: s.groups, kind: '/groups', index: 0 };
    if (path === '/docs')
      return {
        items: w.docs.map((d) => ({ id: d.id, title: d.title, rev: d.rev, ...(this.shape.accessBy === 'field' ? { grants: d.grants } : {}) })),
        style: s.docs,
        kind: '/docs',
        index: 0,
      };
    const members = /^\/groups\/g(\d+)\/members$/.exec(path);
    const group = members ? w.groups.find((g) => g.id === `g${members[1]}`) : undefined;
    if (group) return { items: group.members, style: s.members, kind: 'members', index: w.groups.indexOf(group) };
    const grants = /^\/docs\/d(\d+)\/grants$/.exec(path);
    const doc = grants ? w.docs.find((d) => d.id === `d${grants[1]}`) : undefined;
    if (doc) return { items: doc.grants, style: s.grants, kind: 'grants', index: w.docs.indexOf(doc) };
    return undefined;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const listing = this.listing(url.pathname);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (!listing) return json(404, { error: 'no such listing' });
    const size = this.shape.pageSize;
    const q = url.searchParams;
    const start =
      listing.style === 'offset'
        ? Number(q.get('offset') ?? 0)
        : listing.style === 'page_number'
          ? (Number(q.get('page') ?? 1) - 1) * size
          : Number((q.get('cursor') ?? q.get('pos') ?? 'c0').replace(/^c/, ''));
    const page = Math.floor(start / size);
    const f = this.fault;
    const faulted =
      f !== undefined &&
      f.listing === listing.kind &&
      f.page === page &&
      (listing.kind.startsWith('/') || f.index % Math.max(1, this.countOf(listing.kind)) === listing.index);
    if (faulted && ['status500', 'status404', 'html', 'no_records'].includes(f.kind)) {
      this.hit = true;
      if (f.kind === 'status500') return json(500, { error: 'down' });
      if (f.kind === 'status404') return json(404, { error: 'gone' });
      if (f.kind === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
      return json(200, { unexpected: true });
    }
    let served = listing.items.slice(start, start + size);
    let next: number | undefined = start + size >= listing.items.length ? undefined : start + size;
    // 'repeat': a page answers the records of the page before it (an API that ignores the paging parameter).
    if (faulted && f.kind === 'repeat' && page >= 1 && start <= listing.items.length) {
      this.hit = true;
      served = listing.items.slice(start - size, start);
    }
    // 'loop': a page's cursor or next URL points back to the start (only where the API gives the next position).
    if (faulted && f.kind === 'loop' && page >= 1 && start < listing.items.length && listing.style !== 'offset' && listing.style !== 'page_number') {
      this.hit = true;
      next = 0;
    }
    const base = `${this.url}${url.pathname}`;
    switch (listing.style) {
      case 'offset':
      case 'page_number':
        return json(200, { items: served });
      case 'cursor':
        return json(200, { items: served, ...(next !== undefined ? { next: `c${next}` } : {}) });
      case 'header_cursor':
        return json(200, { items: served }, next !== undefined ? { 'x-next-cursor': `c${next}` } : {});
      case 'next_url':
        return json(200, { items: served, ...(next !== undefined ? { next: `${base}?pos=c${next}` } : {}) });
      case 'link_header':
        return json(200, { items: served }, next !== undefined ? { link: `<${base}?pos=c${next}>; rel="next"` } : {});
    }
  }

  private countOf(kind: string): number {
    return kind === 'members' ? this.world.groups.length : this.world.docs.length;
  }
}

function paginator(style: Style, size: number): string {
  switch (style) {
    case 'offset':
      return `{ type: offset, page_size: ${size} }`;
    case 'page_number':
      return `{ type: page_number, page_size: ${size} }`;
    case 'cursor':
      return '{ type: cursor, cursor_path: next, cursor_param: cursor }';
    case 'header_cursor':
      return '{ type: header_cursor, header: x-next-cursor, cursor_param: cursor }';
    case 'next_url':
      return '{ type: next_url, next_url_path: next }';
    case 'link_header':
      return '{ type: link_header }';
  }
}

function manifestOf(shape: Shape): string {
  const p = (style: Style) => paginator(style, shape.pageSize);
  const access =
    shape.accessBy === 'field'
      ? `      field: { path: grants, map: { type: kind, id: ref } }`
      : `      request:
        requester: { path: '/docs/{record.id}/grants' }
        paginator: ${p(shape.styles.grants)}
        record_selector: items
        map: { type: kind, id: ref }`;
  return `version: 1
identities: email
concurrency: ${shape.concurrency}
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
streams:
  users:
    requester: { path: /users }
    paginator: ${p(shape.styles.users)}
    record_selector: items
    map: { id: email, email: email, name: email, active: 'true' }
  groups:
    requester: { path: /groups }
    paginator: ${p(shape.styles.groups)}
    record_selector: items
    map: { id: id, name: id }
    members:
      request:
        requester: { path: '/groups/{record.id}/members' }
        paginator: ${p(shape.styles.members)}
        record_selector: items
        map: { type: kind, id: ref }
  documents:
${shape.incremental ? '    incremental_sync: { type: listed_version }\n' : ''}    requester: { path: /docs }
    paginator: ${p(shape.styles.docs)}
    record_selector: items
    map: { id: id, name: title, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access:
${access}
`;
}

const entry = (p: Principal): AccessEntry => ({ type: p.kind === 'user' ? 'USER' : 'GROUP', nativeId: p.ref });
const sorted = (entries: readonly AccessEntry[]) => entries.map((e) => JSON.stringify(e)).sort();

/** A change between two runs: a member removed, a grant revoked (the document's listed record changes with it), a document deleted. */
function changed(world: World): World {
  const groups = world.groups.map((g, i) => (i === 0 ? { ...g, members: g.members.slice(1) } : g));
  const docs = world.docs.slice(0, Math.max(1, world.docs.length - 1)).map((d, i) => (i === 0 ? { ...d, rev: d.rev + 1, grants: d.grants.slice(1) } : d));
  return { users: world.users, groups, docs };
}

describe('rest adapter, property: random API shapes and failures never yield a truncated member or access list', () => {
  const api = new ShapedApi();
  beforeAll(() => api.start());
  afterAll(() => api.close());

  async function run(shape: Shape, checkpoint?: unknown): Promise<{ events: SyncEvent[]; error?: Error }> {
    const adapter = createRestAdapter({
      name: 'shaped',
      loaded: parseRestManifest(manifestOf(shape), 'shaped.yaml'),
      env: { API_URL: api.url },
      retryPolicy: QUICK_RETRIES,
    });
    const ctx: AdapterContext = { logger: silent, signal: new AbortController().signal, now: () => new Date() };
    const out: SyncEvent[] = [];
    try {
      const events =
        checkpoint !== undefined && 'changes' in adapter
          ? (adapter as unknown as { changes: (c: AdapterContext, s: unknown) => AsyncIterable<SyncEvent> }).changes(ctx, checkpoint)
          : adapter.full(ctx);
      for await (const event of events) out.push(event);
    } catch (error) {
      return { events: out, error: error as Error };
    }
    return { events: out };
  }

  function expectWhole(world: World, events: SyncEvent[]): void {
    for (const e of events) {
      if (e.type === 'group') expect(sorted(e.group.members)).toEqual(sorted((world.groups.find((g) => g.id === e.group.nativeId)?.members ?? []).map(entry)));
      if (e.type === 'file')
        expect([e.file.nativeId, sorted(e.file.access)]).toEqual([
          e.file.nativeId,
          sorted((world.docs.find((d) => d.id === e.file.nativeId)?.grants ?? []).map(entry)),
        ]);
      if (e.type === 'user') expect(world.users).toContain(e.user.nativeId);
    }
  }

  it('holds for any shape, any failing page, full and incremental runs', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArb, worldArb, faultArb, async (shape, world, fault) => {
        api.shape = shape;
        api.world = world;
        api.fault = undefined;
        api.hit = false;
        let before: World | undefined;
        let checkpoint: unknown;
        if (shape.incremental) {
          // A clean full run first; the faulty run is the incremental one after a change.
          const clean = await run(shape);
          expect(clean.error).toBeUndefined();
          checkpoint = [...clean.events].reverse().find((e) => e.type === 'checkpoint');
          checkpoint = (checkpoint as { checkpoint?: unknown } | undefined)?.checkpoint;
          before = world;
          api.world = changed(world);
        }
        api.fault = fault;
        const { events, error } = await run(shape, checkpoint);
        expectWhole(api.world, events);
        if (before) {
          // Deleted only what is really gone.
          for (const e of events) {
            if (e.type !== 'delete') continue;
            const id = e.nativeId;
            const stillThere = api.world.docs.some((d) => d.id === id) || api.world.groups.some((g) => g.id === id) || api.world.users.includes(id);
            expect(`${e.kind} ${id} deleted while still there: ${stillThere}`).toBe(`${e.kind} ${id} deleted while still there: false`);
          }
        }
        if (api.hit) expect(error !== undefined || events.some((e) => e.type === 'failure')).toBe(true);
        else expect(error).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
