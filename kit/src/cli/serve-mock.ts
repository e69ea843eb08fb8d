import type { RequestListener } from 'node:http';
import { InvalidArgumentError, type Command } from 'commander';
import { drainableServer } from 'content-gateway/lib';
import type { KitRuntime } from './kit-runtime';

/** How long requests in flight get to finish when a mock is stopped. */
const MOCK_SHUTDOWN_GRACE_MS = 5_000;

/** A whole number of at least `min`; commander reports anything else as a usage error naming `name`. */
export function wholeNumber(name: string, min: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new InvalidArgumentError(`${name} takes a whole number ≥ ${min}`);
    return Number(text);
  };
}

/** Adds `--port` and `--host` (loopback by default) to a mock's command. */
export function withListenOptions(command: Command, defaultPort: number): Command {
  return command
    .option('--port <port>', 'port to listen on (0 picks a free one)', wholeNumber('--port', 0), defaultPort)
    .option('--host <host>', 'address to bind', '127.0.0.1');
}

/**
 * Serves a mock's app on `--host`/`--port` until shutdown, when `close` runs and requests in flight
 * get a grace period. Returns the base URL (an IPv6 host in brackets, the port actually bound).
 */
export async function serveMock(
  runtime: KitRuntime,
  app: RequestListener,
  flags: { port: number; host: string },
  close: () => void = () => {},
): Promise<string> {
  const server = await runtime.listen(app, {
    port: flags.port,
    host: flags.host,
    headersTimeoutMs: 60_000,
    requestTimeoutMs: 300_000,
    keepAliveTimeoutMs: 5_000,
  });
  const drainable = drainableServer(server);
  runtime.onShutdown(async () => {
    close();
    await drainable.drain(MOCK_SHUTDOWN_GRACE_MS);
  }, MOCK_SHUTDOWN_GRACE_MS);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : flags.port;
  return `http://${flags.host.includes(':') ? `[${flags.host}]` : flags.host}:${port}`;
}
