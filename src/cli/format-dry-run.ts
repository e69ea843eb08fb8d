import type { DryRun } from '../sync/dry-run-sync';

/** Ids listed per kind of change; the counts say how many there are in all. */
const SHOWN = 5;

function idLines(verb: string, ids: readonly string[]): string[] {
  const lines = ids.slice(0, SHOWN).map((id) => `  ${verb}: ${id}`);
  if (ids.length > SHOWN) lines.push(`  ${verb}: … and ${ids.length - SHOWN} more`);
  return lines;
}

/** What `sync --dry-run` prints for one source: the counts as the engine counted them, then the first ids of each kind. */
export function formatDryRun(d: DryRun): string[] {
  const s = d.summary;
  const c = s.counts;
  const i = s.identities;
  const mode = `${s.mode === 'incremental' ? 'an incremental' : 'a full'} sync`;
  const head =
    `${s.source}: dry run of ${mode}: would add ${c.added}, change ${c.changed}, delete ${c.deleted} files (unchanged ${c.unchanged}, failed ${c.failed}); ` +
    `users and groups: add ${i.added}, change ${i.changed}, delete ${i.deleted}${s.status === 'succeeded' ? '' : ` — the run would end ${s.status}${s.error ? `: ${s.error}` : ''}`}`;
  return [
    head,
    ...idLines('add', d.added),
    ...idLines('change', d.changed),
    ...idLines('delete', d.deleted),
    `${s.source}: nothing was written to staging or the blob store.`,
  ];
}
