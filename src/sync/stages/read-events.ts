import type { SyncEvent } from '../../adapters/adapter';
import { RunCancelled, type RunTally } from '../run-context';

/** Events to decide and commit together, and the checkpoint to store once they are committed. */
export interface EventBatch {
  events: SyncEvent[];
  checkpoint?: unknown;
}

/**
 * Stage 1, read events: the adapter's events in batches. A batch ends at `batchSize` events, at a
 * checkpoint (which it carries) and at the end of the events, so every checkpoint is stored only
 * once the events before it are committed. Failure events are charged to the error budget here;
 * a cancelled run stops reading at the next event. The adapter is not read on while a batch is
 * being committed.
 */
export async function* readEvents(events: AsyncIterable<SyncEvent>, tally: RunTally, batchSize: number, signal: AbortSignal): AsyncGenerator<EventBatch> {
  let pending: SyncEvent[] = [];
  /** Whether the last batch yielded ends at the last event read. */
  let ended = false;
  for await (const event of events) {
    if (signal.aborted) throw new RunCancelled();
    if (event.type === 'checkpoint') {
      yield { events: pending, checkpoint: event.checkpoint };
      pending = [];
      ended = true;
      continue;
    }
    if (event.type === 'failure') tally.fail(event.nativeId ?? '?', event.error);
    else if (event.type !== 'delete') tally.item();
    tally.processed++;
    pending.push(event);
    if (pending.length >= batchSize) {
      yield { events: pending };
      pending = [];
      ended = true;
    } else {
      ended = false;
    }
  }
  // The last batch, unless the one before ended exactly there (at a checkpoint, or full): a run
  // records and reports its progress once for the same events, not twice.
  if (!ended) yield { events: pending };
}
