import net from 'node:net';
import tls from 'node:tls';

/** One response as it came off the wire. */
export interface RawResponse {
  statusLine: string;
  status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  responses: RawResponse[];
  /** Bytes after the last complete response (a response the parser could not delimit). */
  rest: string;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
}

/**
 * Splits the bytes a server sent into responses delimited by Content-Length. Answers to HEAD
 * (`head`) have none; a response without Content-Length or chunking runs to the end when the
 * connection was closed (`closed`), and is otherwise left in the rest.
 */
export function parseResponses(bytes: Buffer, options: { head?: boolean; closed?: boolean } = {}): { responses: RawResponse[]; rest: string } {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [statusLine = '', ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodiless = options.head === true || /^HTTP\/1\.1 (1\d\d|204|304)/.test(statusLine);
    const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    const toClose = declared === undefined && !bodiless && options.closed === true && headers['transfer-encoding'] === undefined;
    if (declared === undefined && !bodiless && !toClose) break;
    const length = bodiless ? 0 : toClose ? bytes.length - end - 4 : (declared ?? 0);
    const body = bytes.subarray(end + 4, end + 4 + length);
    if (body.length < length) break;
    responses.push({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') });
    at = end + 4 + length;
  }
  return { responses, rest: bytes.subarray(at).toString('latin1') };
}

/**
 * Sends `request` byte for byte on a fresh connection (TLS when `ca` is given) and collects what
 * comes back until the server closes the connection or `waitMs` passes. For what no HTTP client
 * sends: malformed request lines, raw UTF-8, conflicting framing headers.
 */
export function rawExchange(
  url: string,
  request: string | Buffer,
  options: { waitMs?: number; ca?: string | Buffer; head?: boolean } = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let closed = false;
    const socket: net.Socket = options.ca
      ? tls.connect({ host: hostname, port: Number(port), ca: options.ca, servername: 'localhost' }, () => socket.write(request))
      : net.connect(Number(port), hostname, () => socket.write(request));
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponses(Buffer.concat(chunks), { closed, ...(options.head ? { head: true } : {}) }), closed });
    };
    const timer = setTimeout(done, options.waitMs ?? 2000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      closed = true;
      done();
    });
    socket.on('close', () => {
      closed = true;
      done();
    });
    socket.on('error', () => undefined);
  });
}
