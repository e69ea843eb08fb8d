import pino from 'pino';
import type { Attributes, UserRecord } from '../../src/adapters/adapter';
import { crawlGateway } from '../../src/conformance/crawl/crawl-gateway';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';
import { parsePolicy } from '../../src/policies/load-policy';
import { runSync } from '../../src/sync/run-sync';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });

/** 'Zürich' composed (as the policy file has it) and decomposed (u + combining diaeresis, as some sources store it). */
const COMPOSED = 'Z\u00fcrich';
const DECOMPOSED = 'Zu\u0308rich';

const POLICY = parsePolicy(`version: 1
rules:
  - name: not-for-zurich
    allow: "user.site != '${COMPOSED}' and doc.kind == 'tender'"
  - name: unless-listed
    allow: "'${COMPOSED}' not in user.excluded and doc.kind == 'bid'"
  - name: same-site
    allow: user.site == doc.site
`);

const user = (nativeId: string, attributes: Attributes): UserRecord => ({ nativeId, email: `${nativeId}@example.com`, active: true, attributes, roles: [] });

/**
 * Texts that are canonically equal (Unicode NFC) are equal to a policy: a user whose site a
 * source stores decomposed is in Zürich for `!=` and `not in` too, so the negations do not grant
 * what the policy withholds from Zürich.
 */
describe.each(databaseKinds)('policy texts compared in Unicode normal form (%s staging)', (kind) => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
  });
  afterAll(async () => gw?.close());

  it('grants nothing through != or not in to a user whose value is the excluded one decomposed', async () => {
    const source = new ScriptedSource('intranet');
    source.putUser(user('zurich', { site: DECOMPOSED, excluded: [DECOMPOSED] })).putUser(user('basel', { site: 'Basel', excluded: [] }));
    const docs: Array<[string, Attributes]> = [
      ['tender', { kind: 'tender' }],
      ['bid', { kind: 'bid' }],
      ['local', { kind: 'memo', site: COMPOSED }],
    ];
    for (const [id, attributes] of docs) {
      source.binary(id, Buffer.from(`%PDF-1.4 ${id}`), `v1-${id}`, []);
      const file = source.files.get(id);
      if (file) source.files.set(id, { ...file, attributes });
    }
    expect(await runSync(source, { db: gw.database.db, blobs: gw.blobs, logger }, { policy: POLICY })).toMatchObject({ status: 'succeeded' });
    const client = new GatewayClient({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      authForm: 'bearer',
      concurrency: 2,
      timeoutMs: 10_000,
      recorder: new CrawlRecorder(),
      pacer: new RateLimitPacer(),
    });
    const access = new EffectiveAccess(accessInputFromCrawl(await crawlGateway(client, { concurrency: 2, skipDownloads: true })));
    client.close();
    const seen = (u: string) => ['tender', 'bid', 'local'].filter((d) => access.canSee(`${u}@example.com`, `intranet:${d}`));
    expect(seen('zurich')).toEqual(['local']);
    expect(seen('basel')).toEqual(['tender', 'bid']);
  });
});
