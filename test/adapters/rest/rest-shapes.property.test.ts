import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { Adapter, SyncEvent } from '../../../src/adapters/adapter';
import { createRestAdapter, parseRestManifest } from '../../../src/adapters/rest';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync, type SyncSummary } from '../../../src/sync/run-sync';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { stagedAccess } from '../work-management/staged-access';
import { silent } from './rest-gateway-fixture';
import { QUICK_RETRIES } from '../../helpers/quick-retries';

/**
 * Random API *shapes* with random failures on identity, access, partition and child pages. Each
 * case draws a source (users, groups with nested groups, documents with access entries, each in one
 * or two of 1-3 spaces, each with 0-2 attachments), a paging style per listing (offset, page
 * number, a cursor in the body or in a header, a next URL in the body, a `Link` header), a page
 * size, where a document's access comes from (a field of the record, or a request per document),
 * whether the documents listing is split by a `partition_router` (substream over /spaces, the only
 * router the manifest has), whether documents have `children` and how a child's access is given
 * (its parent's, its own by a field or a request, or both), full or incremental (`listed_version`)
 * runs, and one failing page on any listing the shape has (an error status, a body that is not
 * JSON, a 200 without the records, a page that repeats, a cursor that points back). A stateful
 * fake API on loopback serves it as the shape says, and a manifest written from the same shape
 * reads it through the real adapter and the real engine into SQLite staging: a clean full run
 * first (except for some full shapes, whose faulty run meets empty staging), then a change (a
 * member removed; on a document whose listed record changes, a grant revoked, an attachment
 * removed and the others' own grants cut; a document deleted with its attachments; a document
 * moved to another space) and the faulty run.
 *
 * Whatever a run yields is whole: every group has all its direct members, every document and child
 * all its access entries (a child its parent's and its own), every user is real, nothing is
 * yielded twice. A failure that landed is seen (the run fails, or items are failures), and one on
 * the users, groups, spaces or a partition's documents fails the run. A run that did not fail
 * yields or names failed every document of every partition it had to read, and each of their
 * children unless that children listing failed. An incremental run deletes only what is really
 * gone (a failed partition page deletes nothing, a failed children page only that parent's
 * children, which are not served with a guessed list), and deletes what is gone: a deleted
 * document with its children, a child removed from a parent read again. Above all: after a run
 * that succeeded without failures, staging grants no (user, document) pair the source does not;
 * with failures, only what a failure names (a document, its children, what a failed group reaches)
 * may keep its staged access. After the clean run,
 * staging grants exactly what the source does. SHAPES_RUNS and SHAPES_SEED set numRuns and seed.
 *
 * Found: an incremental run kept a child removed at the source (served, never deleted) when a
 * sibling's own access request failed that run (seed 2002 at 500 runs; pinned in
 * rest-listed-version-children.test.ts). Seen failing by hand: a paginator that took an error page
 * for the listing's end (found at once: a users page answering 500); the repeated-page guard turned
 * off (found: a page repeating the one before it); a failed partition page taken for the end of
 * that partition (found in 2 of 3 seeds at 60 runs: a fault on a space's documents page, unseen);
 * a failed children page yielding no children (found in 3 of 3 seeds within 13 cases: unseen;
 * without that check, as a child deleted while still there); the fix above undone (found in 1 of 4
 * seeds at 60 runs: the removed child not deleted). Found next: after a failed children page, an
 * incremental run kept the children it could not list, with a grant their parent had just lost
 * (once that excuse was dropped from the check, 3 of 3 seeds at 300 runs; pinned in the same file).
 */
type Style = 'offset' | 'page_number' | 'cursor' | 'header_cursor' | 'next_url' | 'link_header';
type Fault = 'status500' | 'status404' | 'html' | 'no_records' | 'repeat' | 'loop';
type Kind = 'users' | 'groups' | 'spaces' | 'docs' | 'members' | 'grants' | 'files' | 'fileGrants';
/** How a child document's access is given: its parent's (`access.parent`), its own (a field, or a request), or both. */
type ChildAccess = 'none' | 'parent' | 'field' | 'parent_field' | 'request' | 'parent_request';
interface Principal {
  kind: 'user' | 'group';
  ref: string;
}
interface Child {
  id: string;
  title: string;
  grants: Principal[];
}
interface Doc {
  id: string;
  title: string;
  rev: number;
  grants: Principal[];
  /** The partitions (spaces) listing it: one, or two (a document listed twice is yielded once). */
  spaces: number[];
  children: Child[];
}
interface World {
  users: string[];
  groups: Array<{ id: string; members: Principal[] }>;
  spaces: number;
  docs: Doc[];
}
interface Shape {
  styles: Record<Kind, Style>;
  pageSize: number;
  accessBy: 'field' | 'request';
  /** The documents listing once, or once per space (`partition_router: substream` over /spaces). */
  partitioned: boolean;
  children: ChildAccess;
  incremental: boolean;
  /** A full (not incremental) shape: a clean full run first, then the faulty full run after a change; else the faulty run on empty staging. */
  twoRuns: boolean;
  concurrency: number;
}

const KINDS: Kind[] = ['users', 'groups', 'spaces', 'docs', 'members', 'grants', 'files', 'fileGrants'];
/** Listings a failing page there fails the whole run (the docs' table: users, groups, a partition's parent or documents). */
const RUN_LISTINGS: ReadonlySet<Kind> = new Set(['users', 'groups', 'spaces', 'docs']);
const styleArb = fc.constantFrom<Style>('offset', 'page_number', 'cursor', 'header_cursor', 'next_url', 'link_header');
const shapeArb: fc.Arbitrary<Shape> = fc.record({
  styles: fc.record(Object.fromEntries(KINDS.map((k) => [k, styleArb])) as Record<Kind, fc.Arbitrary<Style>>),
  pageSize: fc.integer({ min: 1, max: 3 }),
  accessBy: fc.constantFrom('field', 'request'),
  partitioned: fc.boolean(),
  children: fc.constantFrom<ChildAccess>('none', 'parent', 'field', 'parent_field', 'request', 'parent_request'),
  incremental: fc.boolean(),
  twoRuns: fc.boolean(),
  concurrency: fc.integer({ min: 1, max: 4 }),
});

/** The listings a shape has (a fault is drawn among them). */
function kindsOf(shape: Shape): Kind[] {
  return KINDS.filter(
    (k) =>
      (k !== 'spaces' || shape.partitioned) &&
      (k !== 'grants' || shape.accessBy === 'request') &&
      (k !== 'files' || shape.children !== 'none') &&
      (k !== 'fileGrants' || shape.children === 'request' || shape.children === 'parent_request'),
  );
}

const worldArb: fc.Arbitrary<World> = fc
  .record({
    users: fc.integer({ min: 1, max: 5 }),
    groups: fc.integer({ min: 0, max: 3 }),
    spaces: fc.integer({ min: 1, max: 3 }),
    docs: fc.integer({ min: 1, max: 6 }),
    seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  })
  .map(({ users, groups, spaces, docs, seed }) => {
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
      spaces,
      docs: Array.from({ length: docs }, (_, d): Doc => {
        const home = pick(spaces);
        const also = pick(4) === 0 ? (home + 1) % spaces : home;
        return {
          id: `d${d}`,
          title: `Doc ${d}`,
          rev: 1,
          grants: principals(4, groupIds),
          spaces: [...new Set([home, also])],
          children: Array.from({ length: pick(3) }, (_, c) => ({ id: `d${d}c${c}`, title: `Attachment ${c} of ${d}`, grants: principals(2, groupIds) })),
        };
      }),
    };
  });

const faultArb = (shape: Shape) =>
  fc.record({
    listing: fc.constantFrom(...kindsOf(shape)),
    index: fc.nat({ max: 11 }),
    page: fc.nat({ max: 2 }),
    kind: fc.constantFrom<Fault>('status500', 'status404', 'html', 'no_records', 'repeat', 'loop'),
  });
type FaultSpec = { listing: Kind; index: number; page: number; kind: Fault };

const childrenOf = (world: World): Array<Child & { parent: Doc }> => world.docs.flatMap((d) => d.children.map((c) => ({ ...c, parent: d })));
const parentAccess = (shape: Shape) => shape.children === 'parent' || shape.children === 'parent_field' || shape.children === 'parent_request';
const ownAccess = (shape: Shape) => shape.children !== 'parent' && shape.children !== 'none';

/** The documents listing's record of a document (what `listed_version` hashes). */
function listedDoc(shape: Shape, d: Doc): unknown {
  return { id: d.id, title: d.title, rev: d.rev, ...(shape.accessBy === 'field' ? { grants: d.grants } : {}) };
}

/** Who may see a document or child at the source (principals as entries), or undefined when it does not exist. */
function accessAt(world: World, shape: Shape, id: string): Principal[] | undefined {
  const doc = world.docs.find((d) => d.id === id);
  if (doc) return doc.grants;
  if (shape.children === 'none') return undefined;
  const child = childrenOf(world).find((c) => c.id === id);
  if (!child) return undefined;
  return [...(parentAccess(shape) ? child.parent.grants : []), ...(ownAccess(shape) ? child.grants : [])];
}

/** (document → users) the source grants: groups expanded through nesting. */
function visible(world: World, shape: Shape): Map<string, Set<string>> {
  const expand = (p: Principal, seen = new Set<string>()): string[] => {
    if (p.kind === 'user') return [p.ref];
    if (seen.has(p.ref)) return [];
    seen.add(p.ref);
    return (world.groups.find((g) => g.id === p.ref)?.members ?? []).flatMap((m) => expand(m, seen));
  };
  const ids = [...world.docs.map((d) => d.id), ...(shape.children === 'none' ? [] : childrenOf(world).map((c) => c.id))];
  return new Map(ids.map((id) => [id, new Set((accessAt(world, shape, id) ?? []).flatMap((p) => expand(p)))]));
}

/** The fake API: every listing paged in the style the shape gives it; one page answered with the fault. */
class ShapedApi {
  world!: World;
  shape!: Shape;
  fault: FaultSpec | undefined;
  /** The listings the fault landed on, as `kind#index`. */
  hits = new Set<string>();
  private server = http.createServer((req, res) => this.answer(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private listing(path: string): { items: unknown[]; kind: Kind; index: number } | undefined {
    const w = this.world;
    const shape = this.shape;
    if (path === '/users') return { items: w.users.map((email) => ({ email })), kind: 'users', index: 0 };
    if (path === '/groups') return { items: w.groups.map((g) => ({ id: g.id })), kind: 'groups', index: 0 };
    if (path === '/spaces' && shape.partitioned) return { items: Array.from({ length: w.spaces }, (_, s) => ({ id: `s${s}` })), kind: 'spaces', index: 0 };
    if (path === '/docs' && !shape.partitioned) return { items: w.docs.map((d) => listedDoc(shape, d)), kind: 'docs', index: 0 };
    const space = /^\/spaces\/s(\d+)\/docs$/.exec(path);
    if (space && shape.partitioned && Number(space[1]) < w.spaces) {
      const s = Number(space[1]);
      return { items: w.docs.filter((d) => d.spaces.includes(s)).map((d) => listedDoc(shape, d)), kind: 'docs', index: s };
    }
    const members = /^\/groups\/(g\d+)\/members$/.exec(path);
    const group = members ? w.groups.find((g) => g.id === members[1]) : undefined;
    if (group) return { items: group.members, kind: 'members', index: w.groups.indexOf(group) };
    const perDoc = /^\/docs\/(d\d+)\/(grants|files)$/.exec(path);
    const doc = perDoc ? w.docs.find((d) => d.id === perDoc[1]) : undefined;
    if (doc && perDoc?.[2] === 'grants' && shape.accessBy === 'request') return { items: doc.grants, kind: 'grants', index: w.docs.indexOf(doc) };
    if (doc && perDoc?.[2] === 'files' && shape.children !== 'none')
      return {
        items: doc.children.map((c) => ({ id: c.id, title: c.title, ...(shape.children.endsWith('field') ? { grants: c.grants } : {}) })),
        kind: 'files',
        index: w.docs.indexOf(doc),
      };
    const fileGrants = /^\/files\/(d\d+c\d+)\/grants$/.exec(path);
    const children = childrenOf(w);
    const child = fileGrants ? children.find((c) => c.id === fileGrants[1]) : undefined;
    if (child && shape.children.endsWith('request')) return { items: child.grants, kind: 'fileGrants', index: children.indexOf(child) };
    return undefined;
  }

  private countOf(kind: Kind): number {
    if (kind === 'members') return this.world.groups.length;
    if (kind === 'grants' || kind === 'files') return this.world.docs.length;
    if (kind === 'fileGrants') return childrenOf(this.world).length;
    if (kind === 'docs' && this.shape.partitioned) return this.world.spaces;
    return 1;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const listing = this.listing(url.pathname);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (!listing) return json(404, { error: 'no such listing' });
    const style = this.shape.styles[listing.kind];
    const size = this.shape.pageSize;
    const q = url.searchParams;
    const start =
      style === 'offset'
        ? Number(q.get('offset') ?? 0)
        : style === 'page_number'
          ? (Number(q.get('page') ?? 1) - 1) * size
          : Number((q.get('cursor') ?? q.get('pos') ?? 'c0').replace(/^c/, ''));
    const page = Math.floor(start / size);
    const f = this.fault;
    const faulted = f !== undefined && f.listing === listing.kind && f.page === page && f.index % Math.max(1, this.countOf(listing.kind)) === listing.index;
    const hit = `${listing.kind}#${listing.index}`;
    if (faulted && ['status500', 'status404', 'html', 'no_records'].includes(f.kind)) {
      this.hits.add(hit);
      if (f.kind === 'status500') return json(500, { error: 'down' });
      if (f.kind === 'status404') return json(404, { error: 'gone' });
      if (f.kind === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
      return json(200, { unexpected: true });
    }
    let served = listing.items.slice(start, start + size);
    let next: number | undefined = start + size >= listing.items.length ? undefined : start + size;
    // 'repeat': a page answers the records of the page before it (an API that ignores the paging parameter).
    if (faulted && f.kind === 'repeat' && page >= 1 && start <= listing.items.length) {
      this.hits.add(hit);
      served = listing.items.slice(start - size, start);
    }
    // 'loop': a page's cursor or next URL points back to the start (only where the API gives the next position).
    if (faulted && f.kind === 'loop' && page >= 1 && start < listing.items.length && style !== 'offset' && style !== 'page_number') {
      this.hits.add(hit);
      next = 0;
    }
    const base = `${this.url}${url.pathname}`;
    switch (style) {
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
  const p = (kind: Kind) => paginator(shape.styles[kind], shape.pageSize);
  const entries = '{ type: kind, id: ref }';
  const access =
    shape.accessBy === 'field'
      ? `      field: { path: grants, map: ${entries} }`
      : `      request:
        requester: { path: '/docs/{record.id}/grants' }
        paginator: ${p('grants')}
        record_selector: items
        map: ${entries}`;
  const childAccess = [
    ...(parentAccess(shape) ? ['          parent: true'] : []),
    ...(shape.children.endsWith('field') ? [`          field: { path: grants, map: ${entries} }`] : []),
    ...(shape.children.endsWith('request')
      ? [
          `          request:
            requester: { path: '/files/{record.id}/grants' }
            paginator: ${p('fileGrants')}
            record_selector: items
            map: ${entries}`,
        ]
      : []),
  ].join('\n');
  const children =
    shape.children === 'none'
      ? ''
      : `    children:
      - requester: { path: '/docs/{record.id}/files' }
        paginator: ${p('files')}
        record_selector: items
        map: { id: id, name: title, url: "'https://files.example.com/' & id" }
        content: { html: { template: '<p>{{record.title}}</p>' } }
        access:
${childAccess}
`;
  const listing = shape.partitioned
    ? `    partition_router:
      type: substream
      parent:
        requester: { path: /spaces }
        paginator: ${p('spaces')}
        record_selector: items
    requester: { path: '/spaces/{record.id}/docs' }
`
    : `    requester: { path: /docs }
`;
  return `version: 1
identities: email
concurrency: ${shape.concurrency}
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
streams:
  users:
    requester: { path: /users }
    paginator: ${p('users')}
    record_selector: items
    map: { id: email, email: email, name: email, active: 'true' }
  groups:
    requester: { path: /groups }
    paginator: ${p('groups')}
    record_selector: items
    map: { id: id, name: id }
    members:
      request:
        requester: { path: '/groups/{record.id}/members' }
        paginator: ${p('members')}
        record_selector: items
        map: ${entries}
  documents:
${shape.incremental ? '    incremental_sync: { type: listed_version }\n' : ''}${listing}    paginator: ${p('docs')}
    record_selector: items
    map: { id: id, name: title, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access:
${access}
${children}`;
}

const sorted = (principals: readonly Principal[]) => [...new Set(principals.map((p) => `${p.kind === 'user' ? 'USER' : 'GROUP'} ${p.ref}`))].sort();

/**
 * A change between two runs: a member removed; a grant revoked, an attachment removed and a grant
 * of each remaining attachment revoked, all on a document whose listed record changes with them
 * (`listed_version` reads children again only then); a document deleted (its attachments with
 * it); a document moved to another space (its listed record unchanged: it must not be deleted).
 */
function changed(world: World): World {
  const groups = world.groups.map((g, i) => (i === 0 ? { ...g, members: g.members.slice(1) } : g));
  const docs = world.docs.slice(0, Math.max(1, world.docs.length - 1)).map((d, i): Doc => {
    if (i === 0) return { ...d, rev: d.rev + 1, grants: d.grants.slice(1), children: d.children.slice(1).map((c) => ({ ...c, grants: c.grants.slice(1) })) };
    if (i === 1 && world.spaces > 1) return { ...d, spaces: [((d.spaces[0] ?? 0) + 1) % world.spaces] };
    return d;
  });
  return { users: world.users, groups, spaces: world.spaces, docs };
}

describe('rest adapter, property: random API shapes and failures never yield a truncated member or access list', () => {
  const api = new ShapedApi();
  let t: TestDatabase;
  let blobDir: string;
  let sources = 0;
  beforeAll(async () => {
    await api.start();
    t = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-rest-shapes-'));
  });
  afterAll(async () => {
    await api.close();
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  /** The adapter with every event it yields kept (the engine reads it through this). */
  function recording(adapter: Adapter, events: SyncEvent[]): Adapter {
    return new Proxy(adapter, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        if (key !== 'full' && key !== 'changes') return (value as (...a: unknown[]) => unknown).bind(target);
        return async function* (...args: unknown[]) {
          for await (const event of (value as (...a: unknown[]) => AsyncIterable<SyncEvent>).apply(target, args)) {
            events.push(event);
            yield event;
          }
        };
      },
    });
  }

  /** One run through the real engine into staging; the adapter's events kept. */
  async function sync(adapter: Adapter, mode: 'full' | 'auto'): Promise<{ summary: SyncSummary; events: SyncEvent[] }> {
    const events: SyncEvent[] = [];
    const summary = await runSync(recording(adapter, events), { db: t.db, blobs: new FsBlobStore(blobDir), logger: silent }, { mode, allowMassDelete: true });
    return { summary, events };
  }

  /** (user document) pairs staging grants that the source does not. */
  async function overExposed(source: string, world: World, shape: Shape): Promise<Map<string, string[]>> {
    const want = visible(world, shape);
    const out = new Map<string, string[]>();
    for (const [doc, got] of await stagedAccess(t.db, source))
      for (const user of got) if (!want.get(doc)?.has(user)) out.set(doc, [...(out.get(doc) ?? []), user]);
    return out;
  }

  it('holds for any shape, any failing page, partitions and child documents, full and incremental runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapeArb.chain((shape) => fc.tuple(fc.constant(shape), faultArb(shape))),
        worldArb,
        async ([shape, fault], world) => {
          const source = `shaped${++sources}`;
          const adapter = createRestAdapter({
            name: source,
            loaded: parseRestManifest(manifestOf(shape), 'shaped.yaml'),
            env: { API_URL: api.url },
            retryPolicy: QUICK_RETRIES,
          });
          api.shape = shape;
          api.world = world;
          api.fault = undefined;
          api.hits = new Set();
          let before: World | undefined;
          if (shape.incremental || shape.twoRuns) {
            // A clean full run first: staging then grants exactly what the source does.
            const clean = await sync(adapter, 'full');
            expect({ status: clean.summary.status, failures: clean.summary.failures }).toEqual({ status: 'succeeded', failures: [] });
            expect(new Map([...(await stagedAccess(t.db, source))].map(([id, users]) => [id, [...users].sort()]))).toEqual(
              new Map([...visible(world, shape)].map(([id, users]) => [id, [...users].sort()])),
            );
            before = world;
            api.world = changed(world);
          }
          api.fault = fault;
          const { summary, events } = await sync(adapter, shape.incremental ? 'auto' : 'full');
          const now = api.world;
          const failed = summary.status !== 'succeeded';
          const failures = events.filter((e) => e.type === 'failure');
          const failedIds = new Set(failures.flatMap((e) => (e.type === 'failure' && e.nativeId ? [e.nativeId] : [])));
          const files = events.flatMap((e) => (e.type === 'file' ? [e.file] : []));
          const yielded = new Set(files.map((f) => f.nativeId));

          // Whatever is yielded is whole: every group all its direct members, every document and
          // child all its entries (a child its parent's and its own, as the manifest says), every user real.
          for (const e of events) {
            if (e.type === 'group')
              expect([e.group.nativeId, [...e.group.members.map((m) => `${m.type} ${m.nativeId}`)].sort()]).toEqual([
                e.group.nativeId,
                sorted(now.groups.find((g) => g.id === e.group.nativeId)?.members ?? []),
              ]);
            if (e.type === 'file')
              expect([e.file.nativeId, [...e.file.access.map((a) => `${a.type} ${'nativeId' in a ? a.nativeId : '*'}`)].sort()]).toEqual([
                e.file.nativeId,
                sorted(accessAt(now, shape, e.file.nativeId) ?? [{ kind: 'user', ref: 'a document the source does not have' }]),
              ]);
            if (e.type === 'user') expect(now.users).toContain(e.user.nativeId);
          }
          // Yielded once, though listed in two partitions.
          expect(files.length).toBe(yielded.size);

          // A failure that landed is seen; one on a listing the run depends on fails the run.
          const hits = [...api.hits];
          // (A fault may land in the access reconciliation after an incremental run, which names its failures in the summary.)
          const seen = failed || failures.length > 0 || summary.failures.length > 0;
          if (hits.length > 0) expect(`fault on ${hits.join(' ')} seen: ${seen}`).toBe(`fault on ${hits.join(' ')} seen: true`);
          else expect({ status: summary.status, failures: summary.failures }).toEqual({ status: 'succeeded', failures: [] });
          const runWide = hits.filter((h) => RUN_LISTINGS.has(h.split('#')[0] as Kind));
          if (runWide.length > 0) expect(`fault on ${runWide.join(' ')}: run ${summary.status}`).toBe(`fault on ${runWide.join(' ')}: run failed`);

          const listedBefore = new Map((before?.docs ?? []).map((d) => [d.id, JSON.stringify(listedDoc(shape, d))]));
          const childrenHit = (doc: Doc) => api.hits.has(`files#${now.docs.findIndex((d) => d.id === doc.id)}`);
          if (!failed) {
            // Every document of every partition read (all in a full run; in an incremental one those
            // whose listed record changed) is yielded or named failed; so is each of its children,
            // unless its parent's children listing failed.
            for (const doc of now.docs) {
              if (before && listedBefore.get(doc.id) === JSON.stringify(listedDoc(shape, doc))) continue;
              expect(`${doc.id} yielded or failed: ${yielded.has(doc.id) || failedIds.has(doc.id)}`).toBe(`${doc.id} yielded or failed: true`);
              if (shape.children === 'none' || childrenHit(doc)) continue;
              for (const c of doc.children)
                expect(`${c.id} yielded or failed: ${yielded.has(c.id) || failedIds.has(c.id)}`).toBe(`${c.id} yielded or failed: true`);
            }
          }

          if (before && shape.incremental) {
            // Deleted only what is really gone: a failed partition page never turns into deletions, and
            // a failed children page only into those of that parent's children (fail closed: kept, they
            // could keep a grant the parent lost; they come back when the parent is read again).
            const deleted = new Set(events.flatMap((e) => (e.type === 'delete' ? [e.nativeId] : [])));
            for (const id of deleted) {
              const stillThere = accessAt(now, shape, id) !== undefined || now.groups.some((g) => g.id === id) || now.users.includes(id);
              const unlisted = childrenOf(now).some((c) => c.id === id && childrenHit(c.parent));
              expect(`${id} deleted while still there: ${stillThere && !unlisted}`).toBe(`${id} deleted while still there: false`);
            }
            // What is gone is deleted: a deleted document with its children, a child removed from a re-read parent.
            if (!failed) {
              const gone = before.docs.filter((d) => !now.docs.some((n) => n.id === d.id));
              const expected = gone.flatMap((d) => [d.id, ...(shape.children === 'none' ? [] : d.children.map((c) => c.id))]);
              const reread = now.docs.filter((d) => yielded.has(d.id) && !childrenHit(d));
              for (const doc of reread) {
                const was = before.docs.find((d) => d.id === doc.id)?.children ?? [];
                if (shape.children !== 'none') expected.push(...was.filter((c) => !doc.children.some((n) => n.id === c.id)).map((c) => c.id));
              }
              for (const id of expected) expect(`${id} deleted: ${deleted.has(id)}`).toBe(`${id} deleted: true`);
            }
          }

          // Above all: a run that reports success leaves no access the source withdrew (a failed run
          // keeps staging as it was). Where items failed, only what the failures name (a document,
          // its children, what a failed group reaches) may keep its staged state.
          const exposed = await overExposed(source, now, shape);
          if (!failed && failures.length === 0) expect([...exposed.keys()]).toEqual([]);
          const failedGroups = [...failedIds].filter((id) => now.groups.some((g) => g.id === id));
          const reaches = (id: string): boolean => {
            const walk = (p: Principal, seen: Set<string>): boolean => {
              if (p.kind === 'user' || seen.has(p.ref)) return false;
              seen.add(p.ref);
              return failedGroups.includes(p.ref) || (now.groups.find((g) => g.id === p.ref)?.members ?? []).some((m) => walk(m, seen));
            };
            return (accessAt(now, shape, id) ?? []).some((p) => walk(p, new Set()));
          };
          for (const id of failed ? [] : exposed.keys()) {
            const child = childrenOf(before ?? now).find((c) => c.id === id);
            const excused = failedIds.has(id) || (child && failedIds.has(child.parent.id)) || reaches(id);
            expect(`${id} over-exposed to ${exposed.get(id)?.join(' ')}, excused by a failure: ${excused}`).toMatch(/excused by a failure: true$/);
          }
        },
      ),
      { numRuns: Number(process.env.SHAPES_RUNS ?? 100), ...(process.env.SHAPES_SEED ? { seed: Number(process.env.SHAPES_SEED) } : {}) },
    );
  }, 300_000);
});
