import path from 'node:path';
import fc from 'fast-check';
import { EVERYONE, type AccessEntry, type AdapterContext, type SyncEvent } from '../../../src/adapters/adapter';
import { RestAdapter, restConfigFromEnv } from '../../../src/adapters/rest';
import { PEOPLE, SECRETS, startFakeRestApi, type FakeRestApi } from './fake-rest-api';
import { silent } from './rest-gateway-fixture';

const MANIFEST = path.join(__dirname, 'fixtures/spaces.yaml');
const user = (email: string): AccessEntry => ({ type: 'USER', nativeId: email });
const group = (id: string): AccessEntry => ({ type: 'GROUP', nativeId: id });

/** What the spaces manifest must read from the mock, whole: each team's direct members and each document's access. */
const MEMBERS: Record<string, AccessEntry[]> = { 't-eng': [user('ana@example.com'), group('t-sre')], 't-sre': [user('di@example.com')] };
const ACCESS: Record<string, AccessEntry[]> = {
  d1: [group('t-eng'), user('bo@example.com')],
  d2: [EVERYONE],
  d3: [user('cy@example.com'), group('t-sre')],
  d4: [EVERYONE],
};

/** Where a failure lands: a page of a listing (people, teams) or of a space's grants, and what it is. */
const faultArb = fc.record({
  target: fc.constantFrom('/people', '/teams', '/grants/s-eng', '/grants/s-ops', '/spaces', '/docs'),
  page: fc.integer({ min: 0, max: 2 }),
  answer: fc.constantFrom(
    { status: 400, body: '{"error":"bad"}' },
    { status: 403, body: '{}' },
    { status: 404, body: '{}' },
    { status: 200, body: '<html>' },
    {
      status: 200,
      body: '{"unexpected":true}',
    },
  ),
});

/** The page a request asks for, however the listing pages (a cursor, a page number, the first page). */
const pageOf = (url: URL): number => Number(url.searchParams.get('cursor') ?? url.searchParams.get('page') ?? 0) / (url.pathname === '/people' ? 2 : 1);

/**
 * Random failures of identity and access pages (any listing, any page, a refusal or an answer
 * that is not what was asked): whatever the adapter yields is whole. Every group it yields has
 * all its direct members, every document all its access entries; what it could not read whole it
 * does not yield (a failure, or the run fails).
 */
describe('rest adapter, property: failures never yield a truncated member list or access list', () => {
  let api: FakeRestApi;
  beforeAll(async () => {
    api = await startFakeRestApi();
  });
  afterAll(() => api.close());

  async function events(): Promise<{ events: SyncEvent[]; error?: Error }> {
    const env = { REST_MANIFEST: MANIFEST, SPACES_URL: api.url, SPACES_PASSWORD: SECRETS.password };
    const config = restConfigFromEnv(env);
    const adapter = new RestAdapter({ name: config.name, loaded: config.loaded, env });
    const ctx: AdapterContext = { logger: silent, signal: new AbortController().signal, now: () => new Date() };
    const out: SyncEvent[] = [];
    try {
      for await (const event of adapter.full(ctx)) out.push(event);
    } catch (error) {
      return { events: out, error: error as Error };
    }
    return { events: out };
  }

  it('holds for any failing page', async () => {
    await fc.assert(
      fc.asyncProperty(faultArb, async (fault) => {
        let hit = false;
        api.fault = (url) => {
          if (url.pathname !== fault.target || pageOf(url) !== fault.page) return undefined;
          hit = true;
          return fault.answer;
        };
        const { events: yielded, error } = await events();
        for (const e of yielded) {
          if (e.type === 'group') expect(e.group.members).toEqual(MEMBERS[e.group.nativeId]);
          if (e.type === 'file') expect([e.file.nativeId, e.file.access]).toEqual([e.file.nativeId, ACCESS[e.file.nativeId]]);
          if (e.type === 'user') expect(PEOPLE.map((p) => p.email.toLowerCase())).toContain(e.user.nativeId);
        }
        // A failure that landed is seen: the run fails, or the items it spoiled are failures.
        if (hit) expect(error !== undefined || yielded.some((e) => e.type === 'failure')).toBe(true);
        else expect([error, yielded.filter((e) => e.type === 'file').length]).toEqual([undefined, 4]);
      }),
      { numRuns: 40 },
    );
  });
});
