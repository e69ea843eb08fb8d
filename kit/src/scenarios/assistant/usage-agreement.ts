import type { UsageReport } from 'content-gateway/platform';
import type { UsageLedger } from './answer-judge';

const FIELDS = ['surfaced', 'cited', 'helpful', 'unhelpful'] as const;

export interface UsageDifference {
  file: string;
  field: (typeof FIELDS)[number];
  /** What the scenario recorded. */
  recorded: number;
  /** What `usage` reported. */
  reported: number;
}

export interface UsageAgreement {
  /** Files compared: every file either side names. */
  files: number;
  differences: UsageDifference[];
  /** Cited files since deleted at the source: what the scenario expects, and what `usage` found. */
  staleCitations: { expected: string[]; reported: string[] };
  /** Active files no answer surfaced, as ids (sorted) on each side. */
  neverSurfaced: { expected: string[]; reported: string[] };
  ok: boolean;
}

/**
 * The `usage` report against the scenario's own record, file by file (surfaced, cited, helpful,
 * unhelpful), plus its stale citations (cited files the source has since deleted, by the oracle)
 * and its never-surfaced files (every listed file the source still has that no answer surfaced).
 */
export function compareUsage(report: UsageReport, ledger: UsageLedger, listed: Iterable<string>, deleted: (file: string) => boolean): UsageAgreement {
  const reported = new Map(report.files.map((f) => [f.id, f]));
  const ids = new Set([...ledger.all().map((u) => u.file), ...reported.keys()]);
  const differences: UsageDifference[] = [];
  for (const file of [...ids].sort()) {
    const mine = ledger.get(file);
    const theirs = reported.get(file);
    for (const field of FIELDS) {
      const a = mine?.[field] ?? 0;
      const b = theirs?.[field] ?? 0;
      if (a !== b) differences.push({ file, field, recorded: a, reported: b });
    }
  }
  const stale = {
    expected: ledger
      .all()
      .filter((u) => u.cited > 0 && deleted(u.file))
      .map((u) => u.file)
      .sort(),
    reported: report.staleCitations.map((f) => f.id).sort(),
  };
  const never = {
    expected: [...new Set(listed)].filter((f) => !deleted(f) && (ledger.get(f)?.surfaced ?? 0) === 0).sort(),
    reported: [...report.neverSurfaced].sort(),
  };
  const same = (x: { expected: string[]; reported: string[] }) => x.expected.join('\n') === x.reported.join('\n');
  return { files: ids.size, differences, staleCitations: stale, neverSurfaced: never, ok: differences.length === 0 && same(stale) && same(never) };
}
