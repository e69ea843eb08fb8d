import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { startCli, type CliProcess } from '../e2e/cli-process';

/**
 * Issue 27 (5): with `HEADERS_TIMEOUT_MS=3000`, connections that sent their headers slowly lived
 * 14 s and silent ones 28 s (Node checks those timeouts only every 30 s by default), and nothing
 * capped how many connections were open. The gateway is the real `serve` command; the clients
 * are raw sockets. Each wait allows the setting plus two seconds: about a second of enforcement
 * delay and as much again for a busy machine.
 */
jest.setTimeout(90_000);

const KEY = 'connection-timeouts-key-0123456789ab';
const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 3_000;
const KEEP_ALIVE_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 120;
const SLACK_MS = 2_000;

interface Client {
  socket: net.Socket;
  /** What the server sent so far. */
  received(): string;
  /** Resolves with how long after `connect` the server ended or cut the connection. */
  ended: Promise<number>;
  isEnded(): boolean;
}

/** A raw connection to the gateway; `ended` settles when the server ends (FIN) or resets it. */
function connect(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const started = Date.now();
    let text = '';
    let ended = false;
    const endedAt = new Promise<number>((done) => {
      const end = (): void => {
        ended = true;
        done(Date.now() - started);
      };
      socket.once('end', end);
      socket.once('close', end);
    });
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset is one way of being closed
    socket.once('connect', () => resolve({ socket, received: () => text, ended: endedAt, isEnded: () => ended }));
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long `client` stayed open (ms), or `Infinity` if it is still open after `ms`. */
function closedWithin(client: Client, ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), ms)));
  return Promise.race([client.ended, late]).finally(() => clearTimeout(timer));
}

const request = (port: number, target: string, headers = '') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\n${headers}\r\n`;

describe('timeouts and the cap on open connections, served by `serve`', () => {
  let dir: string;
  let server: CliProcess;
  let port: number;
  const clients: Client[] = [];
  const open = async (): Promise<Client> => {
    const client = await connect(port);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-timeouts-'));
    const sqlitePath = path.join(dir, 'gw.sqlite');
    const db = createDb({ sqlitePath });
    await migrateLatest(db);
    await db.destroy();
    server = startCli(['serve'], {
      SQLITE_PATH: sqlitePath,
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: KEY,
      DEMO_CONTENT: 'off',
      PORT: '0',
      HOST: '127.0.0.1',
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    });
    const line = await server.waitForLine((l) => /listening on http:\/\/localhost:\d+/.test(l), 'the gateway listening');
    port = Number(/localhost:(\d+)/.exec(line)?.[1]);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.destroy();
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`closes ${MAX_CONNECTIONS - 20} silent connections within HEADERS_TIMEOUT_MS (${HEADERS_TIMEOUT_MS} ms) + ${SLACK_MS} ms`, async () => {
    const silent = await Promise.all(Array.from({ length: MAX_CONNECTIONS - 20 }, open));
    const lived = await Promise.all(silent.map((c) => closedWithin(c, HEADERS_TIMEOUT_MS + SLACK_MS)));
    expect(lived.filter((ms) => ms === Number.POSITIVE_INFINITY).length).toBe(0);
    // Answered 408 in the error envelope before being closed.
    expect(silent[0]?.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it(`closes connections that send their headers a byte at a time within HEADERS_TIMEOUT_MS + ${SLACK_MS} ms`, async () => {
    const slow = await Promise.all(Array.from({ length: 10 }, open));
    const text = request(port, '/v1/files');
    let at = 0;
    const drip = setInterval(() => {
      for (const c of slow) if (!c.isEnded()) c.socket.write(text[at % (text.length - 4)] ?? 'x');
      at += 1;
    }, 250);
    try {
      const lived = await Promise.all(slow.map((c) => closedWithin(c, HEADERS_TIMEOUT_MS + SLACK_MS)));
      expect(lived.filter((ms) => ms === Number.POSITIVE_INFINITY).length).toBe(0);
    } finally {
      clearInterval(drip);
    }
  });

  it(`closes a connection whose request body trickles within REQUEST_TIMEOUT_MS (${REQUEST_TIMEOUT_MS} ms) + ${SLACK_MS} ms`, async () => {
    const client = await open();
    client.socket.write(
      `POST /v1/files HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n`,
    );
    const drip = setInterval(() => {
      if (!client.isEnded()) client.socket.write('x');
    }, 250);
    try {
      expect(await closedWithin(client, REQUEST_TIMEOUT_MS + SLACK_MS)).toBeLessThan(Number.POSITIVE_INFINITY);
    } finally {
      clearInterval(drip);
    }
  });

  it(`closes an idle keep-alive connection within KEEP_ALIVE_TIMEOUT_MS (${KEEP_ALIVE_TIMEOUT_MS} ms) + ${SLACK_MS} ms of its last answer`, async () => {
    const client = await open();
    client.socket.write(request(port, '/healthz'));
    for (let i = 0; i < 100 && !client.received().includes('\r\n\r\n'); i++) await sleep(20);
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    const answeredAt = Date.now();
    const lived = await closedWithin(client, KEEP_ALIVE_TIMEOUT_MS + SLACK_MS + 1_000);
    expect(lived).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(Date.now() - answeredAt).toBeLessThanOrEqual(KEEP_ALIVE_TIMEOUT_MS + SLACK_MS);
  });

  it(`accepts at most MAX_CONNECTIONS (${MAX_CONNECTIONS}) open connections: one more is closed unanswered, and served again once they close`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, open));
    // Every held connection is accepted before the next is (the listen queue is in order).
    await sleep(200);
    const extra = await open();
    extra.socket.write(request(port, '/healthz'));
    expect(await closedWithin(extra, HEADERS_TIMEOUT_MS)).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(extra.received()).toBe('');
    expect(held.filter((c) => c.isEnded())).toEqual([]);

    for (const c of held) c.socket.destroy();
    await sleep(200);
    const after = await open();
    after.socket.write(request(port, '/healthz'));
    for (let i = 0; i < 100 && !after.received().includes('\r\n\r\n'); i++) await sleep(20);
    expect(after.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});
