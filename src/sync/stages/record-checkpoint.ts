import type { RunContext, RunTally } from '../run-context';

/**
 * Stage 5, checkpoint: after a batch is committed, an incremental run stores the checkpoint that
 * followed it (a killed run goes on from there); a full run keeps it with its progress instead,
 * to resume from, and stores it as the source's checkpoint only after its sweep. The progress is
 * saved as a heartbeat and reported.
 */
export async function recordCheckpoint(
  ctx: Pick<RunContext, 'source' | 'mode' | 'runId' | 'runs' | 'checkpoints' | 'options' | 'started'>,
  tally: RunTally,
  checkpoint: unknown,
  stamp: string,
): Promise<void> {
  if (checkpoint !== undefined && ctx.mode === 'incremental') await ctx.checkpoints.save(ctx.source, checkpoint, stamp);
  await ctx.runs.saveProgress(ctx.runId, tally.counts, ctx.mode === 'full' ? checkpoint : undefined, stamp);
  ctx.options.onProgress?.({
    source: ctx.source,
    mode: ctx.mode,
    processed: tally.processed,
    counts: { ...tally.counts },
    identities: { ...tally.identities },
    elapsedMs: Date.now() - ctx.started,
  });
}
