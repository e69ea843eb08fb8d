import fc from 'fast-check';
import type { SyncEvent } from '../../../src/adapters/adapter';
import { SyncAbortedError } from '../../../src/sync/error-budget';
import { RunCancelled, RunTally } from '../../../src/sync/run-context';
import { readEvents, type EventBatch } from '../../../src/sync/stages/read-events';

const file = (n: number): SyncEvent => ({
  type: 'file',
  file: { nativeId: `f${n}`, name: `f${n}`, externalUrl: 'https://x.example', mimeType: 'text/html', content: { kind: 'html', html: 'x' }, access: [] },
});
const checkpoint = (n: number): SyncEvent => ({ type: 'checkpoint', checkpoint: { position: n } });
const failure = (n: number): SyncEvent => ({ type: 'failure', kind: 'file', nativeId: `f${n}`, error: new Error(`boom ${n}`) });

async function* of(events: readonly SyncEvent[]): AsyncGenerator<SyncEvent> {
  yield* events;
}

async function batches(
  events: readonly SyncEvent[],
  batchSize: number,
  tally = new RunTally({ maxFailures: 1000, maxFailureRatio: 1, minItems: 1 }),
  signal = new AbortController().signal,
): Promise<EventBatch[]> {
  const out: EventBatch[] = [];
  for await (const batch of readEvents(of(events), tally, batchSize, signal)) out.push(batch);
  return out;
}

describe('readEvents (stage 1)', () => {
  it('cuts batches at the batch size, at each checkpoint (which the batch carries) and at the end', async () => {
    const got = await batches([file(1), file(2), file(3), checkpoint(3), file(4)], 2);
    expect(got.map((b) => [b.events.map((e) => (e.type === 'file' ? e.file.nativeId : e.type)), b.checkpoint])).toEqual([
      [['f1', 'f2'], undefined],
      [['f3'], { position: 3 }],
      [['f4'], undefined],
    ]);
  });

  it('yields one batch for no events at all (the run records its progress), and no empty one after a batch that ended at the last event', async () => {
    expect(await batches([], 10)).toEqual([{ events: [] }]);
    expect(await batches([checkpoint(1)], 10)).toEqual([{ events: [], checkpoint: { position: 1 } }]);
    expect((await batches([file(1), file(2), checkpoint(2)], 10)).map((b) => b.events.length)).toEqual([2]);
    expect((await batches([file(1), file(2)], 2)).map((b) => b.events.length)).toEqual([2]);
  });

  it('counts every event but checkpoints as processed, and charges failures to the tally', async () => {
    const tally = new RunTally({ maxFailures: 1000, maxFailureRatio: 1, minItems: 1 });
    await batches([file(1), failure(2), { type: 'delete', kind: 'file', nativeId: 'f9' }, checkpoint(1)], 10, tally);
    expect(tally.processed).toBe(3);
    expect(tally.counts.failed).toBe(1);
    expect(tally.failures).toEqual(['f2: boom 2']);
  });

  it('stops the run when failures spend the error budget', async () => {
    const tally = new RunTally({ maxFailures: 1, maxFailureRatio: 1, minItems: 1 });
    await expect(batches([failure(1), failure(2), file(3)], 10, tally)).rejects.toBeInstanceOf(SyncAbortedError);
  });

  it('stops reading at the next event once the run is cancelled', async () => {
    const controller = new AbortController();
    const tally = new RunTally({ maxFailures: 1000, maxFailureRatio: 1, minItems: 1 });
    const seen: EventBatch[] = [];
    const reading = (async () => {
      for await (const batch of readEvents(of([file(1), file(2), file(3)]), tally, 1, controller.signal)) {
        seen.push(batch);
        controller.abort();
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(RunCancelled);
    expect(seen).toHaveLength(1);
  });

  it('keeps every event, in order, with each checkpoint right after the events before it', async () => {
    const event = fc.oneof(fc.nat(50).map(file), fc.nat(50).map(checkpoint));
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 60 }), fc.integer({ min: 1, max: 7 }), async (events, size) => {
        const got = await batches(events, size);
        const flattened = got.flatMap((b) => [
          ...b.events,
          ...(b.checkpoint === undefined ? [] : [{ type: 'checkpoint', checkpoint: b.checkpoint } as SyncEvent]),
        ]);
        expect(flattened).toEqual(events);
        for (const b of got) expect(b.events.length).toBeLessThanOrEqual(size);
        // Only the single batch of an empty read is empty without carrying a checkpoint.
        expect(got.filter((b) => b.events.length === 0 && b.checkpoint === undefined).length).toBe(events.length === 0 ? 1 : 0);
      }),
    );
  });
});
