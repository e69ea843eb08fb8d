/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) between two names. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate closest to `name` (a likely misspelling of it), or undefined when none is close:
 * at most a third of the name's length away (ignoring case), ties to the first in sorted order.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of [...candidates].sort()) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { candidate, d };
  }
  return best?.candidate;
}
