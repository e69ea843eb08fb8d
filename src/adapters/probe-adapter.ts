import type { Logger } from '../logging/create-logger';
import type { Adapter } from './adapter';

/** What reading a source's first event showed: it answered (with what), or the problem. */
export type ProbeResult = { ok: true; answered: string } | { ok: false; problem: string };

/**
 * Whether an adapter's source answers, without a sync: its full run is read up to the first event,
 * then closed. Every adapter reads its settings' sources before that event (the filesystem adapter
 * its root and directory file, the SQL adapter its first query, the work-management adapter its
 * first authenticated request), so this checks reachability with no adapter-specific code; the
 * adapter contract has no writes, so nothing is staged.
 */
export async function probeAdapter(adapter: Adapter, logger: Logger): Promise<ProbeResult> {
  const controller = new AbortController();
  const events = adapter.full({ logger, signal: controller.signal, now: () => new Date() })[Symbol.asyncIterator]();
  try {
    const first = await events.next();
    if (first.done === true) return { ok: true, answered: 'the source answered (it has nothing to sync)' };
    const event = first.value;
    if (event.type === 'failure')
      return { ok: false, problem: `${event.kind ?? 'an item'}${event.nativeId ? ` ${event.nativeId}` : ''} could not be read: ${event.error.message}` };
    return { ok: true, answered: `the source answered (first event: ${event.type})` };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  } finally {
    controller.abort();
    await events.return?.().catch(() => undefined);
  }
}
