import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRestAdapter, parseRestManifest } from '../../../src/adapters/rest';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runAccessSync } from '../../../src/sync/run-access-sync';
import { runSync, type SyncSummary } from '../../../src/sync/run-sync';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';
import { QUICK_RETRIES } from '../../helpers/quick-retries';
import { stagedAccess } from '../work-management/staged-access';
import { silent } from './rest-gateway-fixture';

/**
 * An access list the adapter cannot resolve whole (an entry of a type it does not know) fails
 * closed: the document fails, and its staged access list is narrowed to what the rest of the new
 * rule grants, so a reader the source withdrew in the same edit no longer sees it, whether the run
 * is full, `listed_version`, or `updated_since` (the change read by the run, or missed by the
 * cursor and found by reconciliation), and through a parent's access to its children. A transient
 * failure (the access request answering 500) keeps the staged access list: nothing is lost on a
 * failed read.
 */
/** `unknown` values: a careless source serves an entry's type or id as a list or an object. */
type Entry = { type: unknown; id: unknown };
interface Doc {
  id: string;
  updated: number;
  /** Access given in the listed record. */
  acl: Entry[];
  /** Access answered by `/docs/<id>/grants`. */
  grants: Entry[];
  files: string[];
  /** The container it inherits access from. */
  space?: string;
}

const USERS = ['ana', 'bo', 'cy'];
const user = (id: string): Entry => ({ type: 'user', id });
const ROBOT: Entry = { type: 'robot', id: 'r2d2' };

/** A source on loopback: users, documents (listed with an `updated_after` lower bound), each one's grants and child files. */
class FakeSource {
  docs = new Map<string, Doc>();
  /** Containers and who each grants. */
  spaces = new Map<string, Entry[]>();
  /** Paths answered 500. */
  failing = new Set<string>();
  /** The source's clock: each change moves it ten minutes on (past the manifests' one-minute look-back). */
  clock = Date.parse('2026-03-01T00:00:00Z');
  /** The change feed: each event carries the document as it was when the event was made. */
  feed: unknown[] = [];
  url = '';
  private readonly server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (this.failing.has(url.pathname)) return json(500, { error: 'down' });
    if (url.pathname === '/users') return json(200, { items: USERS.map((id) => ({ id, email: `${id}@example.com` })) });
    if (url.pathname === '/docs') {
      const after = url.searchParams.get('updated_after');
      const bound = after === null ? -Infinity : Date.parse(after);
      const listed = [...this.docs.values()].filter((d) => d.updated >= bound);
      return json(200, { items: listed.map((d) => this.record(d)) });
    }
    if (url.pathname === '/spaces') return json(200, { items: [...this.spaces].map(([id, acl]) => ({ id, acl })) });
    if (url.pathname === '/feed') {
      const since = Number(url.searchParams.get('since') ?? this.feed.length);
      return json(200, { events: this.feed.slice(since), next: String(this.feed.length), more: false });
    }
    const [, id, what] = /^\/docs\/([^/]+)\/(grants|files)$/.exec(url.pathname) ?? [];
    const doc = id === undefined ? undefined : this.docs.get(id);
    if (doc && what === 'grants') return json(200, { items: doc.grants });
    if (doc && what === 'files') return json(200, { items: doc.files.map((f) => ({ id: f })) });
    return json(404, {});
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private record({ id, updated, acl, space }: Doc) {
    return { id, updated: new Date(updated).toISOString(), acl, ...(space ? { space } : {}) };
  }

  /** A feed event for a document as it is now (a later change whose event is lost leaves this one stale). */
  event(id: string): void {
    this.feed.push({ id, doc: this.record(this.docs.get(id)!) });
  }

  /** A change at the source; `touch: false` leaves its `updated` alone (a change the cursor misses). */
  put(id: string, change: Partial<Omit<Doc, 'id' | 'updated'>>, touch = true): void {
    const before = this.docs.get(id) ?? { id, updated: 0, acl: [], grants: [], files: [] };
    if (touch) this.clock += 600_000;
    this.docs.set(id, { ...before, ...change, id, updated: touch ? this.clock : before.updated });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

type Sync = 'full' | 'listed_version' | 'updated_since' | 'change_feed';
const SYNCS: Record<Sync, string> = {
  full: '',
  listed_version: 'incremental_sync: { type: listed_version }',
  updated_since: 'incremental_sync: { type: updated_since, cursor: updated, lower_bound: { parameter: updated_after }, look_back: PT1M }',
  change_feed: `incremental_sync:
      type: change_feed
      feed: { requester: { path: /feed }, record_selector: events, token_parameter: since, token: { from: body, path: next }, has_more: more }
      map: { id: id, record: doc }`,
};
const PRINCIPAL = 'map: { type: type, id: id }';

/**
 * A manifest whose documents take their access from the listed record's `acl` (and from `/grants`
 * when `request`, from their container when `inherit`), their files their parent's.
 */
function manifest(sync: Sync, request: boolean, inherit = false): string {
  return `version: 1
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
streams:
  users:
    requester: { path: /users }
    record_selector: items
    map: { id: id, email: email }
${inherit ? `  containers: { requester: { path: /spaces }, record_selector: items, map: { id: id, name: id }, access: { field: { path: acl, ${PRINCIPAL} } } }\n` : ''}  documents:
    ${SYNCS[sync]}
    requester: { path: /docs }
    record_selector: items
    map: { id: id, name: id, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.id}}</p>' } }
    access:
      field: { path: acl, ${PRINCIPAL} }
      ${inherit ? 'inherit: space' : ''}
      ${request ? `request: { requester: { path: '/docs/{record.id}/grants' }, record_selector: items, ${PRINCIPAL} }` : ''}
    children:
      - requester: { path: '/docs/{record.id}/files' }
        record_selector: items
        map: { id: id, name: id, url: "'https://files.example.com/' & id" }
        content: { html: { template: '<p>{{record.id}}</p>' } }
        access: { parent: true }
`;
}

describe.each(databaseKinds)('rest adapter: an access list it cannot resolve fails closed (%s staging)', (kind) => {
  const api = new FakeSource();
  let t: TestDatabase;
  let blobDir: string;
  let clock: number;
  beforeAll(() => api.start());
  afterAll(() => api.close());
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-rest-unresolvable-'));
    clock = Date.parse('2026-06-01T00:00:00Z');
    api.docs.clear();
    api.failing.clear();
    api.feed.length = 0;
    api.spaces.clear();
    api.put('d1', { acl: [user('ana'), user('bo')], grants: [], files: ['d1f'] });
    api.put('d2', { acl: [user('cy')], grants: [] });
  });
  afterEach(async () => {
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  /** A content run (`mode`), or an access-only run (`access`). */
  const run = (sync: Sync, request: boolean, mode: 'full' | 'auto' | 'access', inherit = false): Promise<SyncSummary> => {
    clock += 60_000;
    const at = clock;
    const adapter = createRestAdapter({
      name: 'ra',
      loaded: parseRestManifest(manifest(sync, request, inherit), 'ra.yaml'),
      env: { API_URL: api.url },
      retryPolicy: QUICK_RETRIES,
    });
    const deps = { db: t.db, blobs: new FsBlobStore(blobDir), logger: silent, now: () => new Date(at) };
    return mode === 'access' ? runAccessSync(adapter, deps) : runSync(adapter, deps, { mode });
  };
  /** Who staging lets see each document, sorted. */
  const served = async (): Promise<Record<string, string[]>> => {
    const staged = [...(await stagedAccess(t.db, 'ra'))].sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(staged.map(([doc, who]) => [doc, [...who].sort()]));
  };
  const lastRunError = async () => ((await t.db('sync_runs').orderBy('id', 'desc').first('error')) as { error: string | null }).error;
  /** A run that reports success with `count` failures. */
  const succeededFailing = (summary: SyncSummary, count: number) => {
    expect([summary.status, summary.failures.length]).toEqual(['succeeded', count]);
  };
  const FIRST = { d1: ['ana', 'bo'], d1f: ['ana', 'bo'], d2: ['cy'] };

  it.each<[Sync, 'full' | 'auto']>([
    ['full', 'full'],
    ['listed_version', 'auto'],
    ['updated_since', 'auto'],
    ['updated_since', 'full'],
  ])('%s (%s run): bo, withdrawn in the edit that added an unknown entry, no longer sees the document or its child', async (sync, mode) => {
    succeededFailing(await run(sync, false, 'full'), 0);
    expect(await served()).toEqual(FIRST);
    api.put('d1', { acl: [user('ana'), ROBOT] });
    const summary = await run(sync, false, mode);
    expect(summary.mode).toBe(mode === 'auto' ? 'incremental' : 'full');
    // The document and its child fail (read again next run), narrowed to what the new rule still grants.
    succeededFailing(summary, 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
    // A full run after it keeps them narrowed (never widened back from the staged list).
    succeededFailing(await run(sync, false, 'full'), 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it.each<[string, Entry]>([
    ['an id given as an object', { type: 'user', id: { login: 'r2d2' } }],
    ['a type given as a list', { type: ['user', 'bot'], id: 'r2d2' }],
  ])(
    'full run: an entry with %s (no text the mapping can read) fails closed as an unknown entry does: bo, withdrawn in that edit, no longer sees it',
    async (_, bad) => {
      succeededFailing(await run('full', false, 'full'), 0);
      api.put('d1', { acl: [user('ana'), bad] });
      const summary = await run('full', false, 'full');
      succeededFailing(summary, 2);
      expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
      expect(summary.failures[0]).toMatch(/^d1: streams\.documents\.access\.field: Expression "(id|type)" gave an? (object|list) where a text was expected$/);
    },
  );

  it('change_feed (auto run): the edit read from the feed narrows the document and its child', async () => {
    succeededFailing(await run('change_feed', false, 'full'), 0);
    api.put('d1', { acl: [user('ana'), ROBOT] });
    api.event('d1');
    const summary = await run('change_feed', false, 'auto');
    expect(summary.mode).toBe('incremental');
    succeededFailing(summary, 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it("change_feed (auto run): a stale upsert re-writes the old list, its edit's event lost: reconciliation serves what the new rule still grants", async () => {
    succeededFailing(await run('change_feed', false, 'full'), 0);
    api.event('d1');
    api.put('d1', { acl: [user('ana'), ROBOT] });
    const summary = await run('change_feed', false, 'auto');
    expect(summary.status).toBe('succeeded');
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
    // The next run does not touch them: reconciliation finds them unresolvable, failures kept narrowed.
    succeededFailing(await run('change_feed', false, 'auto'), 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it.each<[Sync, 'full' | 'auto']>([
    ['full', 'full'],
    ['listed_version', 'auto'],
  ])("%s (%s run): a container's access rewritten to drop bo and add an unknown entry narrows the documents inheriting it", async (sync, mode) => {
    api.spaces.set('s1', [user('bo')]);
    api.put('d1', { acl: [user('ana')], space: 's1' }, false);
    succeededFailing(await run(sync, false, 'full', true), 0);
    expect(await served()).toEqual(FIRST);
    api.spaces.set('s1', [ROBOT]);
    succeededFailing(await run(sync, false, mode, true), 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it('updated_since: an edit the cursor misses is found by reconciliation, and narrows the same', async () => {
    succeededFailing(await run('updated_since', false, 'full'), 0);
    api.put('d3', { acl: [user('cy')] });
    api.put('d1', { acl: [user('ana'), ROBOT] }, false);
    const summary = await run('updated_since', false, 'auto');
    expect(summary.mode).toBe('incremental');
    succeededFailing(summary, 2);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'], d3: ['cy'] });
  });

  it.each<[Sync, 'full' | 'auto']>([
    ['full', 'full'],
    ['listed_version', 'auto'],
    ['updated_since', 'auto'],
  ])('%s (%s run): an unknown entry answered by the access request narrows too', async (sync, mode) => {
    api.put('d1', { grants: [user('cy')] });
    succeededFailing(await run(sync, true, 'full'), 0);
    expect(await served()).toEqual({ d1: ['ana', 'bo', 'cy'], d1f: ['ana', 'bo', 'cy'], d2: ['cy'] });
    api.put('d1', { grants: [ROBOT] });
    succeededFailing(await run(sync, true, mode), 2);
    expect(await served()).toEqual(FIRST);
  });

  it.each<[Sync, 'full' | 'auto']>([
    ['full', 'full'],
    ['listed_version', 'auto'],
    ['updated_since', 'auto'],
    ['change_feed', 'auto'],
  ])('%s (%s run): an access request answering 500 is transient: the staged access list is kept', async (sync, mode) => {
    api.put('d1', { grants: [user('cy')] });
    succeededFailing(await run(sync, true, 'full'), 0);
    api.put('d1', { acl: [user('ana')], grants: [] });
    api.event('d1');
    api.failing.add('/docs/d1/grants');
    succeededFailing(await run(sync, true, mode), 2);
    expect(await served()).toEqual({ d1: ['ana', 'bo', 'cy'], d1f: ['ana', 'bo', 'cy'], d2: ['cy'] });
    api.failing.clear();
    succeededFailing(await run(sync, true, mode), 0);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it.each<[Sync, boolean]>([
    ['full', false],
    ['updated_since', false],
    ['full', true],
    ['listed_version', true],
  ])('%s (inherit %s): an access-only run narrows a document and its child when an edit adds an unknown entry, and keeps the others', async (sync, inherit) => {
    if (inherit) api.spaces.set('s1', [user('bo')]);
    if (inherit) api.put('d1', { acl: [user('ana')], space: 's1' }, false);
    succeededFailing(await run(sync, false, 'full', inherit), 0);
    expect(await served()).toEqual(FIRST);
    if (inherit) api.spaces.set('s1', [ROBOT]);
    else api.put('d1', { acl: [user('ana'), ROBOT] }, false);
    api.put('d2', { acl: [user('cy'), user('bo')] }, false);
    const summary = await run(sync, false, 'access', inherit);
    expect(summary).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 2 } });
    expect(summary.failures).toEqual([expect.stringMatching(/^d1: .*robot/), expect.stringMatching(/^d1f: .*robot/)]);
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['bo', 'cy'] });
  });

  it('an access-only run whose access request answers 500 (transient) keeps the staged access lists of the document and its child, and names both failures', async () => {
    api.put('d1', { grants: [user('cy')] });
    succeededFailing(await run('updated_since', true, 'full'), 0);
    api.put('d1', { acl: [user('ana')], grants: [] }, false);
    api.failing.add('/docs/d1/grants');
    const summary = await run('updated_since', true, 'access');
    expect(summary).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 2 } });
    expect(summary.failures).toEqual([expect.stringMatching(/^d1: .*500/), expect.stringMatching(/^d1f: .*parent's access could not be read/)]);
    expect(await lastRunError()).toEqual(summary.failures.join('\n'));
    expect(await served()).toEqual({ d1: ['ana', 'bo', 'cy'], d1f: ['ana', 'bo', 'cy'], d2: ['cy'] });
    api.failing.clear();
    expect(await run('updated_since', true, 'access')).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    expect(await served()).toEqual({ d1: ['ana'], d1f: ['ana'], d2: ['cy'] });
  });

  it('updated_since: an access request answering 500 during reconciliation (an edit the cursor missed) keeps the staged access list', async () => {
    api.put('d1', { grants: [user('cy')] }, false);
    succeededFailing(await run('updated_since', true, 'full'), 0);
    api.put('d1', { grants: [] }, false);
    api.failing.add('/docs/d1/grants');
    const summary = await run('updated_since', true, 'auto');
    // Each named once, from the listing (not asked about as unlisted, so not again from settle).
    succeededFailing(summary, 2);
    expect(summary.failures).toEqual([expect.stringMatching(/^d1: .*500/), expect.stringMatching(/^d1f: .*parent's access could not be read/)]);
    expect(summary).toMatchObject({ counts: { failed: 2, deleted: 0 }, reconciliation: { unlisted: 0 } });
    expect(await served()).toEqual({ d1: ['ana', 'bo', 'cy'], d1f: ['ana', 'bo', 'cy'], d2: ['cy'] });
  });
});
