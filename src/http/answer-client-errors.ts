import crypto from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { GatewayError } from '../errors/gateway-error';
import type { Logger } from '../logging/create-logger';
import { securityHeaderFields } from './middleware/security-headers';

/** How long a refused client gets to read the answer before its connection is cut. */
const LINGER_MS = 2_000;

interface ParserError extends Error {
  code?: string;
  /** llhttp's static description of what it could not parse (never the request's own bytes). */
  reason?: string;
}

/** The answer to what Node's HTTP parser refused, by its error code. */
function refusal(error: ParserError): GatewayError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError('REQUEST_HEADERS_TOO_LARGE', 'The request line and headers together exceed 16 KB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError('REQUEST_TIMEOUT', 'The request did not arrive in time; send its headers at once.');
    case 'HPE_INVALID_METHOD':
      return new GatewayError('INPUT_VALIDATION_FAILED', 'The request method is not one HTTP defines; the gateway answers GET.');
    default: {
      const why = error.reason ? `: ${error.reason.replace(/[^\x20-\x7e]/g, '?')}` : '';
      return new GatewayError(
        'INPUT_VALIDATION_FAILED',
        `The request is not valid HTTP/1.1${why}. Percent-encode anything outside printable ASCII in the URL, and frame a body with Content-Length or Transfer-Encoding, not both.`,
      );
    }
  }
}

/**
 * Ends `socket` with `error` in the envelope, written by hand since no response object exists:
 * JSON with its Content-Length, `Connection: close`, a request id, and the security headers every
 * other answer carries (HSTS over TLS). The refusal is logged under that id; the request itself
 * is not (its bytes may hold a credential).
 */
function refuse(socket: Duplex, error: GatewayError, logger: Logger, what: string): void {
  const id = crypto.randomUUID();
  const body = JSON.stringify({ error: { code: error.code, message: error.message } });
  const secure = (socket as TLSSocket).encrypted === true;
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${id}`,
    ...Object.entries(error.headers).map(([name, value]) => `${name}: ${value}`),
    ...securityHeaderFields(secure).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // A client that never reads or never closes must not keep the socket.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  logger.warn({ reqId: id, code: what, res: { statusCode: error.status }, remoteAddress: (socket as Socket).remoteAddress }, 'request refused before routing');
}

/**
 * Gives what an HTTP(S) server answers on its own the gateway's form. Node's parser refuses raw
 * UTF-8 in a path, an unknown method, oversized headers, conflicting framing and slow clients
 * with a bare status line (`clientError`), closes a `CONNECT` without a word, and answers an
 * unknown `Expect` with a bare 417. Here each of those is a well-formed answer in the error
 * envelope with the security headers (`refuse`); an unknown `Expect` is served like any request
 * (RFC 9110 lets a server ignore it). (A missing `Host` is the app's: `createApp` asks for its
 * server with `requireHostHeader: false`, and `requireHost` refuses it the same way.) Call before
 * the server listens.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  const refused = new WeakSet<Duplex>();
  // Each connection's latest request's response: a pipelined request before a bad one is still
  // being answered while the parser reports the bad one, and its answer (with any queued before
  // it) goes first.
  const latest = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => latest.set(req.socket, res));
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    // The parser may report again on the same connection as more bytes arrive; answer once.
    if (refused.has(socket)) return;
    refused.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = (): void => {
      if (socket.writable) refuse(socket, refusal(error), logger, error.code ?? 'clientError');
      else socket.destroy();
    };
    const inFlight = latest.get(socket);
    if (inFlight && !inFlight.writableFinished) inFlight.once('close', answer);
    else answer();
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    refuse(
      socket,
      new GatewayError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed; the gateway is no proxy and answers GET.', { headers: { Allow: 'GET' } }),
      logger,
      'CONNECT',
    );
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
}
