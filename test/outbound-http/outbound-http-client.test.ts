import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import pino from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { paginateItems } from '../../src/outbound-http/paginate';
import { OutboundHttpClient, type OutboundHttpClientOptions } from '../../src/outbound-http/outbound-http-client';
import { RemoteAuthError, RemoteNotFoundError, RemoteRateLimitError, RemoteRequestError, RemoteUnavailableError } from '../../src/outbound-http/remote-error';
import { type FakeRemote, destroySocket, hang, json, reply, startFakeRemote, truncatedBody } from './fake-remote-server';

const SECRET = 'tok-very-secret';

let source: FakeRemote;
let elsewhere: FakeRemote;
let logLines: string[];
let delays: number[];

beforeEach(async () => {
  [source, elsewhere] = await Promise.all([startFakeRemote(), startFakeRemote()]);
  logLines = [];
  delays = [];
});

afterEach(async () => {
  await Promise.all([source.close(), elsewhere.close()]);
});

/** A client on the fake source whose sleeps are recorded, not waited. */
function client(overrides: Partial<OutboundHttpClientOptions> = {}): OutboundHttpClient {
  return new OutboundHttpClient({
    baseUrl: `${source.origin}/api/1.0`,
    logger: pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) }),
    headers: () => ({ authorization: `Bearer ${SECRET}` }),
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    retryPolicy: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 60_000 },
    ...overrides,
  });
}

function retryLogs(): Array<Record<string, unknown>> {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.msg === 'outbound request failed; retrying');
}

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('OutboundHttpClient.json', () => {
  it('retries 503 twice, then returns the parsed body', async () => {
    source.script('/api/1.0/tasks', reply(503, 'busy'), reply(503, 'busy'), json({ data: [{ gid: '1' }] }));
    const http = client();
    await expect(http.json('GET', '/tasks', { query: { limit: 2, opt_fields: 'name,notes', absent: undefined } })).resolves.toEqual({ data: [{ gid: '1' }] });
    expect(source.requestsTo('/api/1.0/tasks')).toHaveLength(3);
    expect(source.requests[0]?.url).toBe('/api/1.0/tasks?limit=2&opt_fields=name%2Cnotes');
    expect(http.requestCount).toBe(3);
    expect(delays).toEqual([50, 100]);
    expect(retryLogs()).toEqual([
      expect.objectContaining({ level: 20, attempt: 1, delayMs: 50, status: 503, method: 'GET', url: `${source.origin}/api/1.0/tasks` }),
      expect.objectContaining({ level: 20, attempt: 2, delayMs: 100, status: 503 }),
    ]);
    expect(logLines.join('\n')).not.toMatch(new RegExp(`${SECRET}|authorization|limit=|opt_fields`, 'i'));
  });

  it('honours Retry-After on 429, in seconds', async () => {
    source.script('/api/1.0/users', reply(429, '{"errors":[{"message":"rate"}]}', { 'retry-after': '1' }), json({ data: [] }));
    await expect(client().json('GET', 'users')).resolves.toEqual({ data: [] });
    expect(delays).toEqual([1_000]);
  });

  it('honours Retry-After on 429 as an HTTP-date', async () => {
    const now = new Date('2026-03-01T12:00:00Z');
    source.script('/api/1.0/users', reply(429, '', { 'retry-after': 'Sun, 01 Mar 2026 12:00:07 GMT' }), json({ ok: true }));
    await expect(client({ now: () => now }).json('GET', '/users')).resolves.toEqual({ ok: true });
    expect(delays).toEqual([7_000]);
  });

  it('throws RemoteRateLimitError, with the source’s Retry-After, once attempts run out', async () => {
    source.script('/api/1.0/users', reply(429, 'You have made too many requests', { 'retry-after': '30' }));
    const error = await client()
      .json('GET', '/users')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteRateLimitError);
    expect((error as RemoteRateLimitError).retryAfterMs).toBe(30_000);
    expect((error as Error).message).toContain('You have made too many requests');
    expect(source.requests).toHaveLength(4);
    expect(delays).toEqual([30_000, 30_000, 30_000]);
  });

  it('throws RemoteAuthError on 401 without retrying', async () => {
    source.script('/api/1.0/me', json({ errors: [{ message: 'Not Authorized' }] }, 401));
    const http = client();
    const error = await http.json('GET', '/me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteAuthError);
    expect((error as Error).message).toMatch(/401 Unauthorized .*\/api\/1\.0\/me: .*Not Authorized/);
    expect(http.requestCount).toBe(1);
    expect(delays).toEqual([]);
  });

  it('throws RemoteNotFoundError on 404, with the upstream text and no query in the message', async () => {
    source.script('/api/1.0/tasks/9', json({ errors: [{ message: 'task: Unknown object: 9' }] }, 404));
    const error = await client()
      .json('GET', '/tasks/9', { query: { access_token: 'leak' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteNotFoundError);
    expect((error as Error).message).toContain('task: Unknown object: 9');
    expect((error as Error).message).not.toContain('leak');
    expect(delays).toEqual([]);
  });

  it('throws RemoteUnavailableError after the last 5xx attempt', async () => {
    source.script('/api/1.0/x', reply(502, '<html>bad gateway</html>'));
    const error = await client()
      .json('GET', '/x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect((error as RemoteUnavailableError).details.status).toBe(502);
    expect(source.requests).toHaveLength(4);
  });

  it('retries a dropped connection, then succeeds', async () => {
    source.script('/api/1.0/x', destroySocket(), json({ ok: 1 }));
    const http = client();
    await expect(http.json('GET', '/x')).resolves.toEqual({ ok: 1 });
    expect(http.requestCount).toBe(2);
    expect(retryLogs()).toEqual([expect.objectContaining({ attempt: 1, code: 'UND_ERR_SOCKET' })]);
  });

  it('retries a body cut off mid-way', async () => {
    const body = JSON.stringify({ data: Array.from({ length: 50 }, (_, i) => ({ gid: String(i) })) });
    source.script('/api/1.0/x', truncatedBody(body), reply(200, body, { 'content-type': 'application/json' }));
    await expect(client().json('GET', '/x')).resolves.toEqual(JSON.parse(body));
    expect(source.requests).toHaveLength(2);
  });

  it('gives up on a connection that keeps dropping with RemoteUnavailableError', async () => {
    source.script('/api/1.0/x', destroySocket());
    const error = await client()
      .json('GET', '/x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect((error as Error).message).toMatch(/UND_ERR_SOCKET.*4 attempts/);
    // fetch's own TypeError('fetch failed'), from Node's realm rather than jest's.
    expect((error as Error).cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(source.requests).toHaveLength(4);
  });

  it('treats a response that takes longer than timeoutMs as a retryable timeout', async () => {
    source.script('/api/1.0/slow', hang(), json({ ok: true }));
    await expect(client({ timeoutMs: 100 }).json('GET', '/slow')).resolves.toEqual({ ok: true });
    expect(retryLogs()).toEqual([expect.objectContaining({ code: 'ETIMEDOUT' })]);
  });

  it('rejects a 2xx body that is not JSON', async () => {
    source.script('/api/1.0/x', reply(200, '<html>login</html>', { 'content-type': 'text/html' }));
    await expect(client().json('GET', '/x')).rejects.toThrow(RemoteUnavailableError);
  });

  it('returns undefined for an empty 2xx body', async () => {
    source.script('/api/1.0/x', reply(204));
    await expect(client().json('DELETE', '/x')).resolves.toBeUndefined();
  });

  it('sends JSON bodies, and repeats a POST only when the source surely did not act', async () => {
    source.script('/api/1.0/batch', reply(429, '', { 'retry-after': '0' }), reply(503), json({ never: true }));
    const error = await client()
      .json('POST', '/batch', { body: { data: { actions: [] } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect(source.requests.map((r) => [r.method, r.headers['content-type'], r.body])).toEqual([
      ['POST', 'application/json', '{"data":{"actions":[]}}'],
      ['POST', 'application/json', '{"data":{"actions":[]}}'],
    ]);
    source.script('/api/1.0/batch', reply(503), json({ ok: true }));
    await expect(client().json('POST', '/batch', { body: {}, idempotent: true })).resolves.toEqual({ ok: true });
  });

  it('calls the header function for every request, so refreshed tokens are used', async () => {
    let calls = 0;
    source.script('/api/1.0/x', reply(503), json({}));
    const http = client({ headers: async () => ({ authorization: `Bearer token-${++calls}` }), userAgent: 'content-gateway-test/1' });
    await http.json('GET', '/x');
    await http.json('GET', '/x');
    expect(source.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2', 'Bearer token-3']);
    expect(source.requests.every((r) => r.headers['user-agent'] === 'content-gateway-test/1' && r.headers.accept === 'application/json')).toBe(true);
  });
});

describe('OutboundHttpClient.request', () => {
  it('returns the raw final response when a retryable status outlasts the policy', async () => {
    source.script('/api/1.0/x', reply(503, 'still down'));
    const response = await client().request('GET', '/x');
    expect(response.status).toBe(503);
    await expect(response.text()).resolves.toBe('still down');
    expect(source.requests).toHaveLength(4);
  });

  it('returns non-retryable statuses at once', async () => {
    source.script('/api/1.0/x', reply(412, '{"sync":"fresh"}'));
    const response = await client().request('GET', '/x');
    expect(response.status).toBe(412);
    await expect(response.json()).resolves.toEqual({ sync: 'fresh' });
    expect(source.requests).toHaveLength(1);
  });
});

describe('OutboundHttpClient origins', () => {
  it('follows a same-origin absolute URL (next_page.uri) with credentials', async () => {
    source.script('/api/1.0/tasks', json({ data: [] }));
    await client().json('GET', `${source.origin}/api/1.0/tasks?offset=abc&limit=2`);
    expect(source.requests[0]).toMatchObject({ url: '/api/1.0/tasks?offset=abc&limit=2', headers: { authorization: `Bearer ${SECRET}` } });
  });

  it('appends a next_page.path (with its query) to the base path', async () => {
    source.script('/api/1.0/tasks', json({ data: [] }));
    await client().json('GET', '/tasks?project=1337&offset=xyz');
    expect(source.requests[0]?.url).toBe('/api/1.0/tasks?project=1337&offset=xyz');
  });

  it.each([
    ['another origin', () => `${elsewhere.origin}/steal`],
    ['a protocol-relative URL', () => `//${new URL(elsewhere.origin).host}/steal`],
    ['another scheme', () => 'file:///etc/passwd'],
  ])('refuses %s without sending anything', async (_label, target) => {
    const http = client();
    await expect(http.json('GET', target())).rejects.toThrow(RemoteRequestError);
    expect(http.requestCount).toBe(0);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('reaches allowOrigins, but never with credentials', async () => {
    elsewhere.script('/file.bin', reply(200, 'bytes'));
    const http = client({ allowOrigins: [elsewhere.origin] });
    await expect(drain(await http.stream(`${elsewhere.origin}/file.bin?X-Amz-Signature=sig`))).resolves.toEqual(Buffer.from('bytes'));
    expect(elsewhere.requests[0]?.headers.authorization).toBeUndefined();
    expect(elsewhere.requests[0]?.url).toBe('/file.bin?X-Amz-Signature=sig');
  });

  it('refuses a redirect to another origin', async () => {
    source.script('/api/1.0/attachments/1', reply(302, '', { location: `${elsewhere.origin}/steal` }));
    await expect(client().json('GET', '/attachments/1')).rejects.toThrow(RemoteRequestError);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('follows redirects within the source, and to allowOrigins without credentials', async () => {
    source.script('/api/1.0/old', reply(301, '', { location: '/api/1.0/new' }));
    source.script('/api/1.0/new', reply(302, '', { location: `${elsewhere.origin}/blob` }));
    elsewhere.script('/blob', json({ moved: true }));
    const http = client({ allowOrigins: [elsewhere.origin] });
    await expect(http.json('GET', '/old')).resolves.toEqual({ moved: true });
    expect(source.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/api/1.0/old', `Bearer ${SECRET}`],
      ['/api/1.0/new', `Bearer ${SECRET}`],
    ]);
    expect(elsewhere.requests[0]?.headers.authorization).toBeUndefined();
    expect(http.requestCount).toBe(3);
  });

  it('stops after maxRedirects hops', async () => {
    source.script('/api/1.0/loop', reply(302, '', { location: '/api/1.0/loop' }));
    const http = client({ maxRedirects: 3 });
    await expect(http.json('GET', '/loop')).rejects.toThrow(/redirected more than 3 times/);
    expect(http.requestCount).toBe(4);
  });
});

describe('OutboundHttpClient cancellation', () => {
  it('rejects promptly with AbortError when aborted during a Retry-After sleep', async () => {
    source.script('/api/1.0/x', reply(429, '', { 'retry-after': '60' }), json({ never: true }));
    const controller = new AbortController();
    let sleeping!: () => void;
    const asleep = new Promise<void>((resolve) => (sleeping = resolve));
    const http = client({
      signal: controller.signal,
      sleep: (ms, signal) => {
        delays.push(ms);
        sleeping();
        return sleep(ms, undefined, { signal });
      },
    });
    const pending = http.json('GET', '/x');
    await asleep;
    const started = Date.now();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(delays).toEqual([60_000]);
    expect(source.requests).toHaveLength(1);
  });

  it('cancels the in-flight request with AbortError, and does not retry it', async () => {
    source.script('/api/1.0/x', hang());
    const controller = new AbortController();
    const http = client();
    const pending = http.json('GET', '/x', { signal: controller.signal });
    while (source.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('run cancelled'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect((error as Error).cause).toEqual(new Error('run cancelled'));
    expect(http.requestCount).toBe(1);
    expect(delays).toEqual([]);
  });

  it('sends nothing when already aborted', async () => {
    const http = client({ signal: AbortSignal.abort() });
    await expect(http.request('GET', '/x')).rejects.toMatchObject({ name: 'AbortError' });
    expect(http.requestCount).toBe(0);
  });
});

describe('OutboundHttpClient.stream', () => {
  it('streams a 1 MB body intact, after retrying before the body starts', async () => {
    const payload = randomBytes(1024 * 1024);
    source.script('/api/1.0/files/1/content', reply(503), (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let offset = 0; offset < payload.length; offset += 64 * 1024) res.write(payload.subarray(offset, offset + 64 * 1024));
      res.end();
    });
    const http = client();
    const body = await drain(await http.stream('/files/1/content'));
    expect(body.length).toBe(payload.length);
    expect(createHash('sha256').update(body).digest('hex')).toBe(createHash('sha256').update(payload).digest('hex'));
    expect(http.requestCount).toBe(2);
    expect(source.requests[1]?.headers.accept).toBe('*/*');
  });

  it('throws the typed error for a final non-2xx status', async () => {
    source.script('/api/1.0/files/2/content', reply(410, 'gone'));
    await expect(client().stream('/files/2/content')).rejects.toThrow(RemoteNotFoundError);
  });
});

describe('OutboundHttpClient with paginateItems', () => {
  it('walks the work-management API’s offset + next_page listing', async () => {
    const page = (gids: string[], offset: string | null) =>
      json({
        data: gids.map((gid) => ({ gid })),
        next_page: offset === null ? null : { offset, path: `/tasks?offset=${offset}`, uri: `${source.origin}/api/1.0/tasks?offset=${offset}` },
      });
    source.script('/api/1.0/tasks', page(['1', '2'], 'o1'), reply(503), page(['3'], 'o2'), page([], null));
    const http = client();
    type Envelope = { data: { gid: string }[]; next_page: { offset: string } | null };
    const gids: string[] = [];
    for await (const task of paginateItems(async (offset) => {
      const envelope = await http.json<Envelope>('GET', '/tasks', { query: { project: '7', limit: 2, offset } });
      return { items: envelope.data, next: envelope.next_page?.offset };
    }))
      gids.push(task.gid);
    expect(gids).toEqual(['1', '2', '3']);
    expect(source.requests.map((r) => r.url)).toEqual([
      '/api/1.0/tasks?project=7&limit=2',
      '/api/1.0/tasks?project=7&limit=2&offset=o1',
      '/api/1.0/tasks?project=7&limit=2&offset=o1',
      '/api/1.0/tasks?project=7&limit=2&offset=o2',
    ]);
    expect(http.requestCount).toBe(4);
  });
});
