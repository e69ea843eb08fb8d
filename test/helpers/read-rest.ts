import type { IncomingMessage } from 'node:http';

/**
 * Resumes a paused response and reads it until its connection closes; resolves with the bytes it
 * got. For responses the server cut short, which end in an error (ignored here) rather than `end`.
 */
export function readRest(res: IncomingMessage): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    res.on('data', (chunk: Buffer) => (bytes += chunk.length));
    res.once('close', () => resolve(bytes));
    res.once('error', () => undefined);
    res.resume();
  });
}
