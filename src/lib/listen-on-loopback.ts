import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverOptionsOf } from './server-options-of';

export interface LoopbackServer {
  url: string;
  server: http.Server;
  /** Drops open (keep-alive) connections and waits for the server to close. */
  close(): Promise<void>;
}

/**
 * Serves `handler` on 127.0.0.1 at a free port: tests, benchmarks and the harness never pick ports.
 * `prepare` gets the server before it listens (the gateway's `answerClientErrors`); a handler's
 * own server options (`serverOptionsOf`) are honoured.
 */
export async function listenOnLoopback(handler: http.RequestListener, prepare?: (server: http.Server) => void): Promise<LoopbackServer> {
  const server = http.createServer(serverOptionsOf(handler), handler);
  prepare?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
