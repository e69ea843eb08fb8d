import crypto from 'node:crypto';
import http from 'node:http';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const serve = (handler: Handler) => listenOnLoopback(handler);

function client(url: string, concurrency = 20) {
  const recorder = new CrawlRecorder();
  const pacer = new RateLimitPacer();
  return { recorder, pacer, client: new GatewayClient({ baseUrl: url, key: 'k', authForm: 'bearer', concurrency, timeoutMs: 5000, recorder, pacer }) };
}

describe('GatewayClient', () => {
  it('keeps at most `concurrency` requests in flight, and reaches it', async () => {
    let now = 0;
    let peak = 0;
    const server = await serve((_req, res) => {
      peak = Math.max(peak, ++now);
      setTimeout(() => {
        now--;
        res.setHeader('Content-Type', 'application/json');
        res.end('{"ok":true}');
      }, 25);
    });
    const c = client(server.url, 20);
    try {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => c.client.get(`${server.url}/v1/x/${i}`, { kind: 'probe', mode: 'json' })));
      expect(answers.every((a) => a.status === 200 && (a.json as { ok: boolean }).ok)).toBe(true);
      expect(peak).toBe(20);
      expect(c.recorder.stats(c.pacer)).toMatchObject({ requests: 100, maxInFlight: 20 });
    } finally {
      c.client.close();
      await server.close();
    }
  });

  it("neither retries an auth probe's 429 nor lets its budget pace the crawl (the address's failed-authentication budget, not the crawl's)", async () => {
    let probes = 0;
    const server = await serve((req, res) => {
      if (req.headers.authorization === 'Bearer k') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999' }).end('{}');
        return;
      }
      probes++;
      res
        .writeHead(429, { 'Retry-After': '60', 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '0', 'Content-Type': 'application/json' })
        .end('{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"too many failed authentications"}}');
    });
    const c = client(server.url);
    try {
      const wrong = await c.client.get(`${server.url}/v1/files`, { kind: 'probe', mode: 'json', auth: { header: 'Bearer wrong' } });
      const none = await c.client.get(`${server.url}/v1/files`, { kind: 'probe', mode: 'json', auth: 'none' });
      expect([wrong.status, none.status, probes]).toEqual([429, 429, 2]);
      expect(c.recorder.retries).toBe(0);
      const crawl = await c.client.get(`${server.url}/v1/files`, { kind: 'probe', mode: 'json' });
      expect(crawl.status).toBe(200);
      expect(c.recorder.stats(c.pacer)).toMatchObject({ retries: 0 });
      expect(c.pacer.waitedMs).toBe(0);
    } finally {
      c.client.close();
      await server.close();
    }
  });

  it('honours Retry-After on a 429 (waits, then retries), and records a 429 that gives none', async () => {
    let calls = 0;
    const server = await serve((req, res) => {
      calls++;
      if (req.url === '/v1/once' && calls === 1) {
        res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end('{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"slow down"}}');
      } else if (req.url === '/v1/never') {
        res.writeHead(429, { 'Content-Type': 'application/json' }).end('{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"slow down"}}');
      } else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    const c = client(server.url);
    try {
      const started = Date.now();
      const res = await c.client.get(`${server.url}/v1/once`, { kind: 'probe', mode: 'json' });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(c.recorder.retries).toBe(1);
      const never = await c.client.get(`${server.url}/v1/never`, { kind: 'probe', mode: 'json', retry: false });
      expect(never.status).toBe(429);
      expect(c.recorder.missingRetryAfter).toEqual([{ url: `${server.url}/v1/never`, status: 429 }]);
    } finally {
      c.client.close();
      await server.close();
    }
  });

  it('slows down when X-RateLimit-Remaining drops below 30% of the limit, and not above', async () => {
    let remaining = 100;
    const server = await serve((_req, res) => {
      res
        .writeHead(200, {
          'Content-Type': 'application/json',
          'X-RateLimit-Limit': '100',
          'X-RateLimit-Remaining': String(remaining),
          'X-RateLimit-Reset': '1',
        })
        .end('{}');
    });
    const c = client(server.url);
    try {
      const timed = async (n: number) => {
        const started = Date.now();
        for (let i = 0; i < n; i++) await c.client.get(`${server.url}/v1/x`, { kind: 'probe', mode: 'json' });
        return Date.now() - started;
      };
      remaining = 50;
      expect(await timed(5)).toBeLessThan(400);
      remaining = 10; // 1 s / 10 requests left: one request every 100 ms
      await timed(1);
      expect(await timed(5)).toBeGreaterThanOrEqual(400);
      expect(c.pacer.slowdowns).toBe(1);
      expect(c.recorder.rateLimits[0]).toEqual({ url: `${server.url}/v1/x`, family: 'x-ratelimit', limit: '100', remaining: '50', reset: '1' });
    } finally {
      c.client.close();
      await server.close();
    }
  });

  it('hashes a download as it streams (SHA-256 and SHA-1) and keeps none of it', async () => {
    const chunk = crypto.randomBytes(1024 * 1024);
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': String(chunk.length * 8) });
      let sent = 0;
      const more = () => {
        while (sent < 8) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const c = client(server.url);
    try {
      const res = await c.client.get(`${server.url}/v1/files/a/download`, { kind: 'download', mode: 'hash' });
      const all = Buffer.concat(Array.from({ length: 8 }, () => chunk));
      expect(res.bytes).toBe(all.length);
      expect(res.sha256).toBe(crypto.createHash('sha256').update(all).digest('hex'));
      expect(res.sha1).toBe(crypto.createHash('sha1').update(all).digest('hex'));
      expect(res.snippet).toBeUndefined();
      expect(res.json).toBeUndefined();
    } finally {
      c.client.close();
      await server.close();
    }
  });

  it('sends paths exactly as given (probes need raw ".." and escapes) and reports a dead gateway as a transport error', async () => {
    const seen: string[] = [];
    const server = await serve((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":{"code":"NOT_FOUND","message":"no"}}');
    });
    const c = client(server.url);
    try {
      await c.client.get(`${server.url}/v1/files/../../etc/passwd`, { kind: 'probe' });
      await c.client.get(`${server.url}/v1/files/..%2F..%2Fx?$top=a b`, { kind: 'probe' });
      expect(seen).toEqual(['/v1/files/../../etc/passwd', '/v1/files/..%2F..%2Fx?$top=a%20b']);
    } finally {
      c.client.close();
      await server.close();
    }
    const dead = client(server.url);
    const res = await dead.client.get(`${server.url}/v1/files`, { kind: 'list-files' });
    dead.client.close();
    expect(res.status).toBe(0);
    expect(dead.recorder.transportErrors).toEqual([{ url: `${server.url}/v1/files`, kind: 'list-files', message: expect.stringMatching(/ECONNREFUSED/) }]);
  });
});

describe('RateLimitPacer', () => {
  it('spreads starts over the reset window below 30% remaining, pauses on Retry-After, and reads epoch resets', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const slept: number[] = [];
    const pacer = new RateLimitPacer({ now: () => clock, sleep: async (ms) => void slept.push(ms) });
    pacer.observe({ family: 'x-ratelimit', limit: '100', remaining: '40', reset: '10' });
    await pacer.beforeRequest();
    expect(slept).toEqual([]);
    pacer.observe({ family: 'x-ratelimit', limit: '100', remaining: '20', reset: '10' }); // 10 s / 20 = 500 ms apart
    await pacer.beforeRequest();
    await pacer.beforeRequest();
    expect(slept).toEqual([500]);
    pacer.pause(3000);
    await pacer.beforeRequest();
    expect(slept[1]).toBe(3000);
    clock += 60_000;
    pacer.observe({ family: 'ratelimit', limit: '100', remaining: '10', reset: String(Math.round(clock / 1000) + 5) }); // epoch seconds
    await pacer.beforeRequest();
    await pacer.beforeRequest();
    expect(slept[slept.length - 1]).toBe(500);
  });
});
