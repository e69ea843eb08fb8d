import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stateful fake of "the outside world" for OutboundHttpClient tests: a real HTTP server on
 * 127.0.0.1:0 whose routes play scripted steps in order (the last step repeats), recording
 * every request it receives. Tests assert on what went over the wire, not on fetch calls.
 */
export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Step = (req: IncomingMessage, res: ServerResponse) => void;

export interface FakeRemote {
  /** Origin, e.g. http://127.0.0.1:54321 */
  origin: string;
  requests: RecordedRequest[];
  /** Requests whose path (without query) is `path`. */
  requestsTo(path: string): RecordedRequest[];
  script(path: string, ...steps: Step[]): void;
  close(): Promise<void>;
}

export function reply(status: number, body: string | Buffer = '', headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Step {
  return reply(status, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
}

/** The connection drops before any response: a network error at the client. */
export function destroySocket(): Step {
  return (req) => req.socket.destroy();
}

/** Headers and half the promised body, then the connection drops. */
export function truncatedBody(full: string): Step {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
    res.write(full.slice(0, Math.floor(full.length / 2)));
    setTimeout(() => req.socket.destroy(), 10);
  };
}

/** Never answers (until the server closes). */
export function hang(): Step {
  return () => undefined;
}

export async function startFakeRemote(): Promise<FakeRemote> {
  const scripts = new Map<string, { steps: Step[]; next: number }>();
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const script = scripts.get(path);
      const step = script?.steps[Math.min(script.next, script.steps.length - 1)];
      if (!script || !step) {
        reply(404, JSON.stringify({ errors: [{ message: 'No matching route for request' }] }))(req, res);
        return;
      }
      script.next += 1;
      step(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (path) => requests.filter((r) => new URL(r.url, 'http://fake').pathname === path),
    script(path, ...steps) {
      scripts.set(path, { steps, next: 0 });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
