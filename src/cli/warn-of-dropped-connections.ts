import type { Server } from 'node:net';
import type { Logger } from '../logging/create-logger';

/** A flood of refused connections is one log line this often, not one per connection. */
const EVERY_MS = 60_000;

/**
 * Logs the connections `server` closed unanswered because `MAX_CONNECTIONS` were open (Node's
 * `drop` event): the first at once, then at most a line a minute, with how many since the last.
 */
export function warnOfDroppedConnections(server: Server, logger: Logger, maxConnections: number): void {
  let dropped = 0;
  let quietUntil = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now < quietUntil) return;
    logger.warn({ dropped, maxConnections }, 'connections closed unanswered: MAX_CONNECTIONS are open');
    dropped = 0;
    quietUntil = now + EVERY_MS;
  });
}
