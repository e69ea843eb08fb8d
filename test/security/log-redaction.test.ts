import http from 'node:http';
import fc from 'fast-check';
import { hashClientSecret } from '../../src/http/security/client-secrets';
import { TEST_KEYS, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const CLIENT_SECRET = 'platform-client-secret+/=0123456789';
const OTHER_CLIENT_SECRET = 'other.client_secret~0123456789';
const SIGNING_KEY = 'oauth-signing-key-for-log-tests-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-for-log-tests-0123';
const SKIPTOKEN_SECRET = 'skiptoken-secret-for-log-tests-0123456789abcdef';

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function send(url: string, r: Sent): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${r.path}`, { method: r.method, headers: r.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

/** Percent-escapes, decoded again and again (a reader of the log could do the same). */
function decodings(text: string): string[] {
  const out = new Set([text]);
  let current = [text];
  for (let round = 0; round < 4; round += 1) {
    current = current.flatMap((t) => {
      const decoded = t.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return [decoded, decoded.replace(/\+/g, ' ')];
    });
    for (const t of current) out.add(t);
  }
  return [...out];
}

const hex = (c: string, upper: boolean): string => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`;

/** A secret as a client might spell it in a URL. */
const encoded = (secret: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(secret),
    fc.constant(encodeURIComponent(secret)),
    fc.constant([...secret].map((c) => hex(c, true)).join('')),
    fc.constant(
      [...secret]
        .map((c) => hex(c, true))
        .join('')
        .replace(/%/g, '%25'),
    ),
    fc
      .array(fc.constantFrom('raw', 'upper', 'lower'), { minLength: secret.length, maxLength: secret.length })
      .map((how) => [...secret].map((c, i) => (how[i] === 'raw' ? c : hex(c, how[i] === 'upper'))).join('')),
  );

/** A credential parameter name as a client might spell it: any case, escapes, brackets. */
const credentialName = fc
  .tuple(
    fc.constantFrom(
      'access_token',
      'token',
      'apikey',
      'api_key',
      'api-key',
      'key',
      'secret',
      'client_secret',
      'password',
      'auth',
      'authorization',
      'sig',
      'signature',
      'code',
      'refresh_token',
      'id_token',
      'x-api-key',
      'accessToken',
      'my_access_token',
      'X-Amz-Security-Token',
    ),
    fc.array(fc.constantFrom('same', 'upper', 'lower', 'escape'), { minLength: 30, maxLength: 30 }),
    fc.constantFrom('', '[]', '[0]'),
  )
  .map(
    ([name, how, suffix]) =>
      `${[...name].map((c, i) => (how[i] === 'upper' ? c.toUpperCase() : how[i] === 'lower' ? c.toLowerCase() : how[i] === 'escape' ? hex(c, i % 2 === 0) : c)).join('')}${suffix}`,
  );

/** The request's log line is written when its response closes, which may be just after the client has it. */
async function logged(gw: TestGateway): Promise<void> {
  for (let i = 0; i < 100 && !gw.logLines.some((l) => l.includes('request completed')); i += 1) await new Promise((r) => setTimeout(r, 2));
}

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

/**
 * Every way the corpus places a secret: URL (names, values, paths), headers, the token endpoint's
 * body. `anywhere` false: only where a client would put a credential (credential parameters,
 * headers, the token endpoint), for OAuth client secrets: the gateway holds only their scrypt
 * hashes, so it cannot recognise one pasted as a file id or under a made-up parameter name.
 */
function hostileRequest(secret: string, anywhere: boolean): fc.Arbitrary<Sent> {
  const get = (path: string, headers: Record<string, string> = {}): Sent => ({ method: 'GET', path, headers });
  const credentialPlaces: Array<fc.Arbitrary<Sent>> = [
    fc
      .tuple(credentialName, encoded(secret), fc.constantFrom('/v1/files', '/v1/users', '/healthz', '/oauth2/token', '/nope'))
      .map(([name, value, path]) => get(`${path}?${name}=${value}`)),
    fc.tuple(credentialName, encoded(secret)).map(([name, value]) => get(`/v1/files?$top=1&${name}=${value}&$select=id`)),
    fc
      .constantFrom('Authorization', 'X-Api-Key', 'Cookie', 'X-Request-Id', 'User-Agent', 'Referer', 'Proxy-Authorization', 'X-Forwarded-For')
      .chain((header) =>
        fc.constantFrom(secret, `Bearer ${secret}`, basic('platform', secret), `a=${secret}`).map((value) => get('/v1/files', { [header]: value })),
      ),
    encoded(secret).map((value) => ({
      method: 'POST',
      path: '/oauth2/token',
      headers: form,
      body: `grant_type=client_credentials&client_id=platform&client_secret=${value}`,
    })),
    fc.constant({
      method: 'POST',
      path: '/oauth2/token',
      headers: { ...form, Authorization: basic('platform', secret) },
      body: 'grant_type=client_credentials',
    }),
    fc.constant({
      method: 'POST',
      path: '/oauth2/token',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 'platform', client_secret: secret }),
    }),
    fc.constant({ method: 'POST', path: '/oauth2/token', headers: form, body: `client_secret=${secret}&`.repeat(500) }),
    encoded(secret).map((value) => ({ method: 'POST', path: `/oauth2/token?client_secret=${value}`, headers: form, body: 'grant_type=client_credentials' })),
  ];
  if (!anywhere) return fc.oneof(...credentialPlaces);
  return fc.oneof(
    ...credentialPlaces,
    fc
      .tuple(fc.constantFrom('q', '$filter', 'foo', '$skiptoken', '$top', 'x'), encoded(secret))
      .map(([name, value]) => get(`/v1/files?$top=1&${name}=${value}&$select=id`)),
    encoded(secret).map((value) => get(`/v1/files?${value}=1`)),
    encoded(secret).map((value) => get(`/v1/files?${value}`)),
    encoded(secret).map((value) => get(`/v1/files/${value}`)),
    encoded(secret).map((value) => get(`/v1/files/demo%3A${value}/download`)),
    encoded(secret).map((value) => get(`/${value}/x`)),
    encoded(secret).map((value) => get(`/v1/groups/${value}/members?$top=${value}`)),
    encoded(secret).map((value) => ({ method: 'POST', path: `/v1/files?q=${value}`, headers: form, body: `access_token=${secret}` })),
  );
}

describe('no configured secret reaches a log line', () => {
  let gw: TestGateway;
  let hashes: string[];
  beforeAll(async () => {
    hashes = [await hashClientSecret(CLIENT_SECRET), await hashClientSecret(OTHER_CLIENT_SECRET)];
    gw = await startTestGateway('sqlite', {
      oauthClients: [`platform:${hashes[0]}`, `other:${hashes[1]}`],
      oauthSigningKey: SIGNING_KEY,
      metricsToken: METRICS_TOKEN,
      skipTokenSecret: SKIPTOKEN_SECRET,
      rateLimitRequests: 0,
    });
  });
  afterAll(() => gw.close());

  const secrets = (): string[] => [...TEST_KEYS, CLIENT_SECRET, OTHER_CLIENT_SECRET, SIGNING_KEY, METRICS_TOKEN, SKIPTOKEN_SECRET, ...hashes];

  function leaks(lines: readonly string[]): Array<{ secret: string; line: string }> {
    const found: Array<{ secret: string; line: string }> = [];
    for (const line of lines) {
      const readings = decodings(line);
      for (const secret of secrets()) {
        const forms = [secret, Buffer.from(`platform:${secret}`).toString('base64')];
        if (readings.some((r) => forms.some((f) => r.includes(f)))) found.push({ secret, line });
      }
    }
    return found;
  }

  it('redacts credential parameters by their decoded, case-insensitive name (`?apikey=`, `?access%5Ftoken=`)', async () => {
    const lines: string[] = [];
    for (const path of [
      `/v1/files?apikey=${TEST_KEYS[0]}`,
      `/v1/files?access%5Ftoken=${TEST_KEYS[0]}`,
      `/v1/files?$top=1&API_KEY=${TEST_KEYS[1]}`,
      `/v1/files?x-api-key=${TEST_KEYS[1]}&$top=1`,
    ]) {
      gw.logLines.length = 0;
      await send(gw.url, { method: 'GET', path, headers: {} });
      await logged(gw);
      lines.push(...gw.logLines);
    }
    const urls = lines.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url);
    expect(urls).toEqual([
      '/v1/files?apikey=[redacted]',
      '/v1/files?access%5Ftoken=[redacted]',
      '/v1/files?$top=1&API_KEY=[redacted]',
      '/v1/files?x-api-key=[redacted]&$top=1',
    ]);
  });

  it('keeps what an operator needs: paths, ids and OData options that hold no secret', async () => {
    gw.logLines.length = 0;
    const path = '/v1/files/demo%3Apublic%2Fwelcome.html?$top=5&$skiptoken=abc.def&$orderby=id';
    await send(gw.url, { method: 'GET', path, headers: {} });
    await logged(gw);
    expect((JSON.parse(gw.logLines[0] as string) as { req: { url: string } }).req.url).toBe(path);
  });

  it('holds for a corpus of hostile requests: secrets in query names and values in many encodings, in paths, in headers, in the token endpoint body (client secrets wherever a credential goes)', async () => {
    const clientSecrets = [CLIENT_SECRET, OTHER_CLIENT_SECRET];
    const corpus = fc.constantFrom(...secrets()).chain((secret) => hostileRequest(secret, !clientSecrets.includes(secret)));
    await fc.assert(
      fc.asyncProperty(corpus, async (request) => {
        gw.logLines.length = 0;
        const res = await send(gw.url, request);
        expect({ request, status: res.status < 500 }).toEqual({ request, status: true });
        await logged(gw);
        expect({ request, leaks: leaks(gw.logLines) }).toEqual({ request, leaks: [] });
      }),
      { numRuns: 400 },
    );
  });

  it('never takes a caller-supplied X-Request-Id that holds a secret', async () => {
    for (const secret of [TEST_KEYS[0], METRICS_TOKEN]) {
      gw.logLines.length = 0;
      const res = await send(gw.url, { method: 'GET', path: '/healthz', headers: { 'X-Request-Id': secret } });
      await logged(gw);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(leaks(gw.logLines)).toEqual([]);
    }
  });
});

describe('request ids', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
  });
  afterAll(() => gw.close());

  it('echoes a sane caller id (at most 128 of A-Z a-z 0-9 . _ : -) and logs it', async () => {
    for (const id of ['crawl-42.page-7', 'crawl:42:page_7', 'a', 'x'.repeat(128), 'urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e']) {
      gw.logLines.length = 0;
      const res = await send(gw.url, { method: 'GET', path: '/healthz', headers: { 'X-Request-Id': id } });
      await logged(gw);
      expect(res.headers['x-request-id']).toBe(id);
      expect((JSON.parse(gw.logLines[0] as string) as { reqId: string }).reqId).toBe(id);
    }
  });

  it('replaces any other caller id with a generated one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .string({ unit: fc.constantFrom('a', '-', ':', ' ', '/', '%', '"', '{', '\u00e9', '=', ',', '\t'), minLength: 1, maxLength: 20 })
            .filter((s) => !/^[A-Za-z0-9._:-]+$/.test(s) && s.trim() === s && s.length > 0),
          fc.integer({ min: 129, max: 400 }).map((n) => 'a'.repeat(n)),
        ),
        async (id) => {
          const res = await send(gw.url, { method: 'GET', path: '/healthz', headers: { 'X-Request-Id': id } });
          expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        },
      ),
      { numRuns: 60 },
    );
  });
});
