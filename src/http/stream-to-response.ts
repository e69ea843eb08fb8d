import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** What `streamToResponse` rejects with when the client goes away first (the code `stream.pipeline` uses). */
export class ClientClosedError extends Error {
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE';

  constructor() {
    super('The client closed the connection before the answer was complete');
    this.name = 'ClientClosedError';
  }
}

/**
 * Streams `source` into `res` with back-pressure and settles once: when the answer is finished;
 * with the source's error when it fails (midway, the response is destroyed, so the client sees a
 * truncated body, never a whole-looking one; before the first byte, the response is left for the
 * caller to answer with an error); or with `ClientClosedError` when the client goes away first
 * (the source is destroyed, which closes its file or stops its queries).
 *
 * `stream.pipeline` does the same with seven `close` listeners on the response (its destroyer,
 * two end-of-stream watchers, its pipe); with the request log, the metrics, admission and the
 * graceful drain, every download's response had eleven, over Node's limit of ten, and each one
 * logged a MaxListenersExceededWarning. This adds one, beside `pipe`'s own.
 */
export function streamToResponse(source: Readable, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      res.off('finish', onFinish);
      res.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onFinish = (): void => settle();
    const onClose = (): void => {
      if (res.writableFinished) {
        settle();
        return;
      }
      source.destroy();
      settle(new ClientClosedError());
    };
    // Stays on the source: a late error of a destroyed source must not go unhandled.
    source.on('error', (error: Error) => {
      if (settled) return;
      source.unpipe(res);
      if (res.headersSent) res.destroy();
      settle(error);
    });
    res.once('finish', onFinish);
    res.once('close', onClose);
    source.pipe(res);
  });
}
