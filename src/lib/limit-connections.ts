import type { Server } from 'node:http';

/**
 * How often Node holds open connections against `headersTimeout` and `requestTimeout` (its
 * `connectionsCheckingInterval`, given when the server is created). Node's default, 30 s, let a
 * silent connection live 28 s under a 3 s headers timeout; each check walks the open connections,
 * which once a second costs nothing measurable.
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

export interface ConnectionLimits {
  /** A client must send its request headers within this time. */
  headersTimeoutMs: number;
  /** ... and its whole request (not the answer) within this time. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** A connection on which no byte moves for this long is closed (0 or absent: never). */
  stallTimeoutMs?: number;
  /** Open connections beyond which a new one is closed at once, unanswered (0 or absent: no cap). */
  maxConnections?: number;
}

/**
 * Bounds what a slow or silent client can hold, with Node's own server settings: the headers
 * and request timeouts (checked every `CONNECTIONS_CHECKING_INTERVAL_MS` when the server was
 * created with it), the keep-alive timeout, the socket timeout (`server.timeout`: Node destroys a
 * connection on which nothing was read or written for that long, which is how a client that
 * stopped reading a download loses it; Node restores it after each keep-alive wait), and
 * `maxConnections` (Node closes connections beyond it as it accepts them, emitting `drop`).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.stallTimeoutMs ?? 0;
  server.maxConnections = limits.maxConnections ?? 0;
}
