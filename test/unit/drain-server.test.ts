import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainableServer, type DrainableServer } from '../../src/lib/drain-server';
import { readRest } from '../helpers/read-rest';

/**
 * The serve command's graceful stop, over real loopback HTTP with keep-alive clients and the
 * gateway's 65 s keep-alive timeout: nothing in flight is cut, nothing idle holds the stop open.
 */
describe('drainableServer', () => {
  let server: http.Server;
  let drainable: DrainableServer;
  let agent: http.Agent;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;

  beforeEach(async () => {
    handler = (_req, res) => res.end('ok');
    server = http.createServer((req, res) => handler(req, res));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    drainable = drainableServer(server);
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  });
  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });

  interface Answer {
    status: number;
    connection: string | undefined;
    body: Buffer;
    /** The socket the answer came on was closed by the server. */
    closed: Promise<void>;
  }
  const get = (path = '/', onResponse?: (res: http.IncomingMessage) => void): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path, agent }, (res) => {
        const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
        if (onResponse) return onResponse(res);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: Buffer.concat(chunks), closed }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const timed = async (work: Promise<void>): Promise<number> => {
    const start = Date.now();
    await work;
    return Date.now() - start;
  };

  it('closes idle keep-alive connections at once instead of waiting out the keep-alive timeout', async () => {
    const first = await get();
    expect(first.connection).toBe('keep-alive');
    expect(await timed(drainable.drain(30_000))).toBeLessThan(5_000);
    await first.closed;
  });

  it('lets a request in flight finish, tells its client the connection closes, then stops', async () => {
    let release!: () => void;
    const entered = new Promise<void>((resolve) => {
      handler = (_req, res) => {
        release = () => res.end('answered after the drain began');
        resolve();
      };
    });
    const answer = get();
    await entered;
    let drained = false;
    const drain = drainable.drain(30_000).then(() => {
      drained = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(drained).toBe(false);
    release();
    const got = await answer;
    expect(got).toMatchObject({ status: 200, connection: 'close' });
    expect(got.body.toString()).toBe('answered after the drain began');
    expect(await timed(drain)).toBeLessThan(5_000);
    await got.closed;
  });

  it('ends the connection of a response whose headers went out before the drain, once its body is written', async () => {
    let finish!: () => void;
    const entered = new Promise<void>((resolve) => {
      handler = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('first half, ');
        finish = () => res.end('second half');
        resolve();
      };
    });
    const answer = get();
    await entered;
    const drain = drainable.drain(30_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    finish();
    const got = await answer;
    expect(got.status).toBe(200);
    expect(got.connection).toBe('keep-alive'); // the headers were already sent
    expect(got.body.toString()).toBe('first half, second half');
    expect(await timed(drain)).toBeLessThan(5_000);
    await got.closed;
  });

  it('cuts a client that stopped reading once the grace period is over', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Length': String(64 * 1024 * 1024) });
      const chunk = Buffer.alloc(1024 * 1024);
      const pump = (): void => {
        while (res.write(chunk)) {
          /* fill the socket until it pushes back */
        }
      };
      res.on('drain', pump);
      pump();
    };
    const stalled = new Promise<http.IncomingMessage>((resolve) => void get('/', (res) => resolve(res)).catch(() => undefined));
    const res = await stalled;
    res.pause();
    const took = await timed(drainable.drain(300));
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(5_000);
    // Reading again, the client finds the connection cut short of the declared length.
    const received = await readRest(res);
    expect(res.complete).toBe(false);
    expect(received).toBeLessThan(64 * 1024 * 1024);
  });
});
