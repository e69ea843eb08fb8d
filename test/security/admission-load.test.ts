import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { htmlFile } from '../helpers/staging-fixtures';
import { pipelinedConnection } from '../helpers/pipelined-connection';
import { readRest } from '../helpers/read-rest';

/**
 * Issue 14 (5): the concurrency cap (MAX_CONCURRENT_REQUESTS) sheds what is truly beyond it and
 * nothing else. A hostile client's 50 keep-alive connections under a cap of 64 got 503s: a
 * connection's next request was counted while its previous answer still held the slot.
 */
jest.setTimeout(120_000);

const CONNECTIONS = 50;
const PER_CONNECTION = 100;
/** Requests a pipelining connection keeps on the wire at once. */
const DEPTH = 3;

function bodyOf(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function statusCounts(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

describe('the concurrency cap under keep-alive load', () => {
  let gw: TestGateway;
  let deckSha256: string;
  const paths = ['/v1/files?$top=2', '/v1/files/test%3Adeck/download', '/v1/files/test%3Aa', '/v1/files/test%3Adeck/permissions', '/v1/users'];

  beforeAll(async () => {
    // One client (127.0.0.1) on purpose: the cap's own accounting, without a client's share.
    gw = await startTestGateway('sqlite', { maxConcurrentRequests: 64, clientConcurrencyShare: 1, rateLimitRequests: 0 });
    const blob = await gw.blobs.put(crypto.randomBytes(48 * 1024));
    deckSha256 = blob.sha256;
    await gw.writer.putFiles([
      { file: htmlFile('test:a'), permissions: [] },
      {
        file: htmlFile('test:deck', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
  });
  afterAll(() => gw.close());

  it(`answers ${CONNECTIONS} keep-alive connections × ${PER_CONNECTION} requests under a cap of 64 without a single 503`, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      const one = (p: string) =>
        new Promise<number>((resolve, reject) => {
          http
            .get(`${gw.url}${p}`, { agent, headers: AUTH }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            })
            .on('error', reject);
        });
      const statuses = (
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async (_, c) => {
            const out: number[] = [];
            for (let i = 0; i < PER_CONNECTION; i++) out.push(await one(paths[(c + i) % paths.length] as string));
            return out;
          }),
        )
      ).flat();
      expect(statusCounts(statuses)).toEqual({ 200: CONNECTIONS * PER_CONNECTION });
    } finally {
      agent.destroy();
    }
  });

  it(`answers ${CONNECTIONS} connections that keep ${DEPTH} requests on the wire (pipelining: the next is sent before the answer is read) without a single 503`, async () => {
    const answers = await Promise.all(
      Array.from({ length: CONNECTIONS }, () => pipelinedConnection(gw.url, { paths, count: PER_CONNECTION, depth: DEPTH, headers: AUTH })),
    );
    expect(statusCounts(answers.flat().map((a) => a.status))).toEqual({ 200: CONNECTIONS * PER_CONNECTION });
    // In order: every download answer sits where its request was, whole.
    for (const connection of answers) {
      connection.forEach((a, i) => {
        if (paths[i % paths.length]?.endsWith('/download')) expect([a.headers['checksum-sha256'], a.body.length]).toEqual([deckSha256, 48 * 1024]);
      });
    }
  });
});

describe('the concurrency cap under truly concurrent load', () => {
  let gw: TestGateway;
  const CAP = 4;
  const download = '/v1/files/test%3Abig/download';

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { maxConcurrentRequests: CAP, clientConcurrencyShare: 1, rateLimitRequests: 0 });
    const blob = await gw.blobs.put(crypto.randomBytes(8 * 1024 * 1024));
    await gw.writer.putFiles([
      {
        file: htmlFile('test:big', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
  });
  afterAll(() => gw.close());

  /** A download whose body is not read: it holds its slot until destroyed. */
  const slowDownload = (agent: http.Agent) =>
    new Promise<http.IncomingMessage>((resolve, reject) => http.get(`${gw.url}${download}`, { agent, headers: AUTH }, resolve).on('error', reject));

  it(`sheds with 503 + Retry-After exactly what is beyond a cap of ${CAP}: ${CAP} + 3 slow downloads on their own connections`, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CAP + 3 });
    try {
      const answers = await Promise.all(Array.from({ length: CAP + 3 }, () => slowDownload(agent)));
      const shed = answers.filter((r) => r.statusCode === 503);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([...Array<number>(CAP).fill(200), 503, 503, 503]);
      for (const r of shed) {
        expect(r.headers['retry-after']).toBe('1');
        // The envelope says why and what to do, not the generic text of a failure.
        expect(JSON.parse(await bodyOf(r))).toEqual({
          error: { code: 'SERVICE_UNAVAILABLE', message: `The gateway is at its limit of ${CAP} concurrent requests; retry shortly.` },
        });
      }
      for (const r of answers) r.destroy();
      // Every slot comes back once the downloads are cut.
      await new Promise((r) => setTimeout(r, 100));
      const after = await Promise.all(Array.from({ length: CAP }, () => slowDownload(agent)));
      expect(after.map((r) => r.statusCode)).toEqual(Array<number>(CAP).fill(200));
      for (const r of after) await readRest(r);
    } finally {
      agent.destroy();
    }
  });

  it('gives every slot back when connections drop with pipelined requests still waiting for their turn', async () => {
    const { hostname, port } = new URL(gw.url);
    const request = `GET ${download} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${AUTH.Authorization}\r\n\r\n`;
    const sockets = Array.from({ length: CAP }, () => net.connect(Number(port), hostname));
    for (const s of sockets) s.write(request.repeat(3));
    await new Promise((r) => setTimeout(r, 200));
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const agent = new http.Agent({ keepAlive: true, maxSockets: CAP });
    try {
      const after = await Promise.all(Array.from({ length: CAP }, () => slowDownload(agent)));
      expect(after.map((r) => r.statusCode)).toEqual(Array<number>(CAP).fill(200));
      for (const r of after) await readRest(r);
    } finally {
      agent.destroy();
    }
  });
});

describe("a client's share of the cap (CLIENT_CONCURRENCY_SHARE)", () => {
  let gw: TestGateway;
  const CAP = 4;
  const download = '/v1/files/test%3Abig/download';

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { maxConcurrentRequests: CAP, clientConcurrencyShare: 0.75, rateLimitRequests: 0 });
    const blob = await gw.blobs.put(crypto.randomBytes(8 * 1024 * 1024));
    await gw.writer.putFiles([
      {
        file: htmlFile('test:big', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
  });
  afterAll(() => gw.close());

  /** A download from `localAddress` whose body is not read. */
  const slowDownload = (localAddress: string, headers: Record<string, string> = {}, url = gw.url) =>
    new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${url}${download}`, { agent: false, localAddress, headers: { ...AUTH, ...headers } }, resolve).on('error', reject),
    );

  it('lets one address hold 3 of 4 slots, and leaves the fourth to another address', async () => {
    const first = await Promise.all(Array.from({ length: CAP }, () => slowDownload('127.0.0.1')));
    try {
      expect(first.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 503]);
      const refused = first.find((r) => r.statusCode === 503) as http.IncomingMessage;
      expect(refused.headers['retry-after']).toBe('1');
      expect(JSON.parse(await bodyOf(refused))).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: `This client has 3 requests in progress, its share of the gateway's ${CAP}; retry shortly.` },
      });
      const other = await slowDownload('127.0.0.2');
      expect(other.statusCode).toBe(200);
      other.destroy();
    } finally {
      for (const r of first) r.destroy();
    }
  });

  it('tells clients behind a trusted proxy apart by their forwarded address (TRUST_PROXY)', async () => {
    const behind = await startTestGateway('sqlite', {
      maxConcurrentRequests: CAP,
      clientConcurrencyShare: 0.75,
      rateLimitRequests: 0,
      trustProxy: '127.0.0.1',
    });
    const blob = await behind.blobs.put(crypto.randomBytes(8 * 1024 * 1024));
    await behind.writer.putFiles([
      {
        file: htmlFile('test:big', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
    const answers: http.IncomingMessage[] = [];
    try {
      for (let i = 0; i < CAP; i++) answers.push(await slowDownload('127.0.0.1', { 'X-Forwarded-For': '203.0.113.7' }, behind.url));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 503]);
      const other = await slowDownload('127.0.0.1', { 'X-Forwarded-For': '203.0.113.8' }, behind.url);
      answers.push(other);
      expect(other.statusCode).toBe(200);
    } finally {
      for (const r of answers) r.destroy();
      await behind.close();
    }
  });
});
