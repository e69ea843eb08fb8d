import fs from 'node:fs';
import { CHECKS, checkDefinition } from '../checks/check-catalog';
import { summarizeChecks } from '../checks/run-checks';
import type { Profile } from '../conformance-profile';
import type { CrawlRecord, CrawlStats, RecordedRun } from '../crawl/crawl-record';
import { sortFindings, type Finding, type Severity } from '../finding';

/** How access answers treat inactive users (the report states it so a reader knows). */
export const INACTIVE_POLICY =
  'Inactive users do not count as able to see: the platform resolves access through identities it can map, and a deactivated account cannot search. They are listed separately (inactive / wouldSee).';

export interface CheckSummary {
  check: string;
  title: string;
  /** The source rule the check enforces under the run's profile. */
  rule: string;
  severity: Severity;
  counts: Record<Severity, number>;
}

/** A finished conformance run: what `--report` reads back and every report format renders. */
export interface ConformanceReport {
  tool: 'content-gateway conformance';
  formatVersion: 1;
  target: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  options: {
    profile: Profile;
    rawIds: boolean;
    concurrency: number;
    authForm: string;
    oddTop?: number;
    secondCrawl: boolean;
    probes: boolean;
    expectations: number;
  };
  summary: { ok: boolean; checks: Record<Severity, number>; findings: Record<Severity, number> };
  checks: CheckSummary[];
  /** Worst first. */
  findings: Finding[];
  stats: CrawlStats;
  accessPolicy: string;
  crawl: CrawlRecord;
  recorded: Omit<RecordedRun, 'crawl' | 'stats'>;
}

export function buildReport(args: {
  target: string;
  startedAt: Date;
  finishedAt: Date;
  options: ConformanceReport['options'];
  findings: Finding[];
  run: RecordedRun;
}): ConformanceReport {
  // Catalog order puts root causes (crawl, contract, auth) before their consequences.
  const findings = sortFindings(
    args.findings,
    CHECKS.map((c) => c.id),
  );
  const checks = summarizeChecks(findings).map((c) => {
    const definition = checkDefinition(c.check);
    return { ...c, title: definition?.title ?? c.check, rule: definition?.[args.options.profile].rule ?? '' };
  });
  const count = (list: ReadonlyArray<{ severity: Severity }>): Record<Severity, number> => ({
    fail: list.filter((x) => x.severity === 'fail').length,
    warn: list.filter((x) => x.severity === 'warn').length,
    pass: list.filter((x) => x.severity === 'pass').length,
  });
  const { crawl, stats, ...recorded } = args.run;
  const checkCounts = count(checks);
  return {
    tool: 'content-gateway conformance',
    formatVersion: 1,
    target: args.target,
    startedAt: args.startedAt.toISOString(),
    finishedAt: args.finishedAt.toISOString(),
    durationMs: args.finishedAt.getTime() - args.startedAt.getTime(),
    options: args.options,
    summary: { ok: checkCounts.fail === 0, checks: checkCounts, findings: count(findings) },
    checks: checks.sort((a, b) => ({ fail: 2, warn: 1, pass: 0 })[b.severity] - { fail: 2, warn: 1, pass: 0 }[a.severity]),
    findings,
    stats,
    accessPolicy: INACTIVE_POLICY,
    crawl,
    recorded,
  };
}

/** Reads a JSON report written by `conformance` (for `who-can-see --report`). */
export function readReport(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a readable JSON report (${(error as Error).message})`, { cause: error });
  }
  const r = data as Partial<ConformanceReport>;
  if (r.tool !== 'content-gateway conformance' || r.formatVersion !== 1 || !r.crawl || !Array.isArray(r.crawl.files)) {
    throw new Error(`${file}: not a conformance JSON report (written by \`conformance --out\`)`);
  }
  return r as ConformanceReport;
}
