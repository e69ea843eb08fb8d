import { seedDemo } from '../../../src/demo/seed-demo';
import { runSync } from '../../../src/sync/run-sync';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { accessByEmail, crawlAccess, gatewayAdapter, silent } from './rest-gateway-fixture';

const KEY = TEST_KEYS[0];
type Crawl = Awaited<ReturnType<typeof crawlAccess>>;

/**
 * The source gateway behind a wire that pages member lists and access lists one entry at a time
 * and answers 500 (every retry included) for the second page of one group's members (the read
 * fails mid-way, after a first page that looked fine) and for one restricted file's access list.
 */
function faultyFetch(brokenMembersOf: string, brokenPermissionsOf: string): { fetch: typeof fetch; failed: string[] } {
  const failed: string[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const path = decodeURIComponent(url.pathname);
    const paged = path.endsWith('/members') || path.endsWith('/permissions');
    if (paged && url.searchParams.has('$top')) url.searchParams.set('$top', '1');
    const broken =
      (path === `/v1/groups/${brokenMembersOf}/members` && url.searchParams.has('$skiptoken')) || path === `/v1/files/${brokenPermissionsOf}/permissions`;
    if (broken) {
      failed.push(path);
      return new Response(JSON.stringify({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'injected' } }), { status: 500 });
    }
    return globalThis.fetch(url, init);
  };
  return { fetch: wrapped, failed };
}

const membersOf = (crawl: Crawl, prefix = ''): Record<string, string[]> =>
  Object.fromEntries(
    crawl.groups.map((g) => [
      g.id.slice(prefix.length),
      (g.members?.entries ?? []).map((m) => `${m.type}:${m.id.startsWith(prefix) ? m.id.slice(prefix.length) : m.id}`).sort(),
    ]),
  );

/** Every file an email sees on the mirror, the source also lets it see. */
function overExposed(upstream: Crawl, mirrored: Crawl): string[] {
  const allowed = accessByEmail(upstream);
  const seen = accessByEmail(mirrored, 'upstream:');
  return Object.entries(seen).flatMap(([email, files]) => files.filter((f) => !(allowed[email] ?? []).includes(f)).map((f) => `${email} -> ${f}`));
}

describe('rest adapter: identity and access reads fail closed', () => {
  let source: TestGateway;
  let mirror: TestGateway;
  let upstream: Crawl;
  let group: string;
  let file: string;

  beforeAll(async () => {
    source = await startTestGateway('sqlite');
    await seedDemo(source.database.db, source.blobs);
    mirror = await startTestGateway('sqlite');
    upstream = await crawlAccess(source.url, KEY);
    group = upstream.groups.find((g) => (g.members?.entries.length ?? 0) >= 2)!.id;
    file = upstream.files.find((f) => f.status === 'active' && f.permissions.length > 0 && f.permissions.every((p) => p.id !== '*'))!.id;
  });
  afterAll(async () => {
    await mirror?.close();
    await source?.close();
  });

  const sync = (fetchImpl?: typeof fetch) =>
    runSync(
      gatewayAdapter(source.url, KEY, fetchImpl ? { fetch: fetchImpl } : {}),
      { db: mirror.database.db, blobs: mirror.blobs, logger: silent },
      { mode: 'full' },
    );

  it('stages neither a truncated member list nor a file whose access list failed mid-way, and over-exposes nothing', async () => {
    const wire = faultyFetch(group, file);
    const summary = await sync(wire.fetch);
    expect(wire.failed.length).toBeGreaterThan(0);
    expect(summary.counts.failed).toBe(2);
    const mirrored = await crawlAccess(mirror.url, KEY);
    const staged = membersOf(mirrored, 'upstream:');
    const truth = membersOf(upstream);
    // The broken group is not served at all; every group served has its whole member list.
    expect(staged[group]).toBeUndefined();
    for (const [id, members] of Object.entries(staged)) expect([id, members]).toEqual([id, truth[id]]);
    expect(mirrored.files.map((f) => f.id)).not.toContain(`upstream:${file}`);
    expect(overExposed(upstream, mirrored)).toEqual([]);
  });

  it('keeps the staged members and access when a later run fails the same reads', async () => {
    expect((await sync()).counts.failed).toBe(0);
    const whole = await crawlAccess(mirror.url, KEY);
    expect(accessByEmail(whole, 'upstream:')).toEqual(accessByEmail(upstream));

    const summary = await sync(faultyFetch(group, file).fetch);
    expect([summary.status, summary.counts.failed]).toEqual(['succeeded', 2]);
    const after = await crawlAccess(mirror.url, KEY);
    expect(membersOf(after, 'upstream:')).toEqual(membersOf(upstream));
    expect(accessByEmail(after, 'upstream:')).toEqual(accessByEmail(upstream));
  });

  it('fails the run, sweeping nothing, when a page of the users listing fails mid-way', async () => {
    const before = await crawlAccess(mirror.url, KEY);
    const usersBroken: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/v1/users') {
        if (url.searchParams.has('$skiptoken')) return new Response('{"error":{"code":"INTERNAL_SERVER_ERROR","message":"injected"}}', { status: 500 });
        url.searchParams.set('$top', '1');
      }
      return globalThis.fetch(url, init);
    };
    const summary = await sync(usersBroken);
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/Remote answered 500 .* for http:\/\/127.0.0.1:\d+\/v1\/users/);
    const after = await crawlAccess(mirror.url, KEY);
    expect(after.users.map((u) => [u.email, u.state]).sort()).toEqual(before.users.map((u) => [u.email, u.state]).sort());
    expect(accessByEmail(after, 'upstream:')).toEqual(accessByEmail(before, 'upstream:'));
  });
});
