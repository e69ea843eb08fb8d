import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface DrainableServer {
  /**
   * Stops accepting connections, lets requests in flight finish, and resolves once every
   * connection is closed; whatever is still open after `graceMs` is cut.
   */
  drain(graceMs: number): Promise<void>;
}

/**
 * Graceful stop for an HTTP(S) server. `server.close()` alone closes the keep-alive connections
 * that are idle at that moment, but a connection whose request is in flight goes back to
 * keep-alive once it is answered and then holds `close()` open until the keep-alive timeout
 * (65 s by default here). So every response in flight when the drain starts, or arriving on a
 * still-open connection after it, ends its connection: with `Connection: close` when its headers
 * have not gone out yet (the client then knows not to reuse it), else by ending the socket once
 * the response is written. Connections still open at the deadline (a client that stopped
 * reading a download) are destroyed.
 *
 * Call right after the server starts listening: only requests seen from then on are tracked.
 */
export function drainableServer(server: Server): DrainableServer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (res: ServerResponse): void => {
    if (!res.headersSent) {
      res.setHeader('Connection', 'close');
      return;
    }
    const socket: Socket | null = res.socket;
    if (socket) res.once('finish', () => socket.end());
  };
  // Ahead of the app's own listener, so a request arriving during the drain is marked before the
  // app can answer it.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  return {
    drain(graceMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of inFlight) closeAfter(res);
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
      deadline.unref();
      return closed.finally(() => clearTimeout(deadline));
    },
  };
}
