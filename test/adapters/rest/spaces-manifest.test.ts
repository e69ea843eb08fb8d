import path from 'node:path';
import { RestAdapter, restConfigFromEnv } from '../../../src/adapters/rest';
import { runSync } from '../../../src/sync/run-sync';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { DOCS, GRANTS, PEOPLE, SECRETS, SPACES, startFakeRestApi, TEAMS, type FakeRestApi } from './fake-rest-api';
import { accessByEmail, crawlAccess, silent } from './rest-gateway-fixture';

const MANIFEST = path.join(__dirname, 'fixtures/spaces.yaml');

/** The mock's own answer to who may see what (by lower-cased email, active people only): the oracle. */
function oracle(): Record<string, string[]> {
  const active = PEOPLE.filter((p) => p.status === 'active').map((p) => p.email.toLowerCase());
  const people = (grants: ReadonlyArray<{ kind: string; ref: string }>, seen = new Set<string>()): string[] =>
    grants.flatMap((g) => {
      if (g.kind === 'person') return [g.ref.toLowerCase()];
      if (seen.has(g.ref)) return [];
      seen.add(g.ref);
      return people(TEAMS.find((t) => t.id === g.ref)?.members ?? [], seen);
    });
  const readers = (doc: (typeof DOCS)[number]): string[] => {
    const space = SPACES.find((s) => s.id === doc.space);
    if (doc.id === 'd4' || space?.open) return active;
    return people(space ? (GRANTS[space.id] ?? []) : []).filter((e) => active.includes(e));
  };
  const out: Record<string, string[]> = Object.fromEntries(PEOPLE.map((p) => [p.email.toLowerCase(), [] as string[]]));
  for (const doc of DOCS) for (const email of readers(doc)) out[email]?.push(doc.id);
  for (const files of Object.values(out)) files.sort();
  return out;
}

/**
 * The third style of API (session login, a cursor in the body, Link headers, spaces that grant
 * access to the documents in them, members of nested teams), read through a manifest by the real
 * sync engine into real staging, served and crawled: who sees what is what the mock says.
 */
describe('a manifest for an API of another style: spaces that grant access to their documents', () => {
  let api: FakeRestApi;
  let gw: TestGateway;
  beforeEach(async () => {
    api = await startFakeRestApi();
    gw = await startTestGateway('sqlite');
  });
  afterEach(async () => {
    await gw.close();
    await api.close();
  });

  const sync = () => {
    const env = { REST_MANIFEST: MANIFEST, SPACES_URL: api.url, SPACES_PASSWORD: SECRETS.password };
    const config = restConfigFromEnv(env);
    return runSync(
      new RestAdapter({ name: config.name, loaded: config.loaded, env }),
      { db: gw.database.db, blobs: gw.blobs, logger: silent },
      { mode: 'full' },
    );
  };

  it('serves each document to exactly the people the mock says, and one login serves the whole run', async () => {
    const summary = await sync();
    expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
    const crawl = await crawlAccess(gw.url, TEST_KEYS[0]);
    expect(crawl.files.map((f) => f.id).sort()).toEqual(DOCS.map((d) => `spaces:${d.id}`).sort());
    expect(accessByEmail(crawl, 'spaces:')).toEqual(oracle());
    expect(Object.values(oracle()).some((files) => files.length > 0 && files.length < DOCS.length)).toBe(true);
    expect(api.logins).toBe(1);
  });

  it("keeps a document's staged access when its space's grants fail mid-way, and does not serve it before", async () => {
    api.broken.add('s-ops');
    const first = await sync();
    expect(first.counts.failed).toBe(1);
    const without = await crawlAccess(gw.url, TEST_KEYS[0]);
    expect(without.files.map((f) => f.id)).not.toContain('spaces:d3');
    const expected = oracle();
    const seen = accessByEmail(without, 'spaces:');
    for (const [email, files] of Object.entries(seen)) expect([email, files]).toEqual([email, (expected[email] ?? []).filter((id) => id !== 'd3')]);

    api.broken.clear();
    expect((await sync()).counts.failed).toBe(0);
    api.broken.add('s-ops');
    expect((await sync()).counts.failed).toBe(1);
    expect(accessByEmail(await crawlAccess(gw.url, TEST_KEYS[0]), 'spaces:')).toEqual(expected);
  });
});
