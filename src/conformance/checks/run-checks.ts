import { fail, warn, SEVERITY_RANK, type Finding, type Severity } from '../finding';
import { accessChecks } from './access-checks';
import { severityCap } from './check-catalog';
import type { CheckInput } from './check-input';
import { contractChecks } from './contract-checks';
import { crawlChecks } from './crawl-checks';
import { fileChecks } from './file-checks';
import { identityChecks } from './identity-checks';
import { pagingChecks } from './paging-checks';
import { permissionChecks } from './permission-checks';
import { probeChecks } from './probe-checks';
import { rateLimitChecks } from './rate-limit-checks';

/** Findings kept per check and severity; the rest are counted in one closing finding. */
export const MAX_FINDINGS_PER_CHECK = 50;

/** A finding no worse than its check's cap under the run's profile (a platform-tolerated problem is a warning). */
function capped(f: Finding, cap: Severity): Finding {
  return SEVERITY_RANK[f.severity] > SEVERITY_RANK[cap] ? { ...f, severity: cap } : f;
}

/** Runs every check family over a recorded run. Pure: no I/O, same input → same findings. */
export function runChecks(input: CheckInput): Finding[] {
  const all = [crawlChecks, contractChecks, probeChecks, pagingChecks, fileChecks, permissionChecks, identityChecks, rateLimitChecks, accessChecks]
    .flatMap((family) => family(input))
    .map((f) => capped(f, severityCap(f.check, input.profile)));
  const kept: Finding[] = [];
  const counts = new Map<string, number>();
  for (const f of all) {
    const key = `${f.check} ${f.severity}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (f.severity === 'pass' || n <= MAX_FINDINGS_PER_CHECK) kept.push(f);
  }
  for (const [key, n] of counts) {
    if (n <= MAX_FINDINGS_PER_CHECK) continue;
    const [check = '', severity] = key.split(' ');
    const more = `…and ${(n - MAX_FINDINGS_PER_CHECK).toLocaleString('en-US')} more like these (${n.toLocaleString('en-US')} in all).`;
    kept.push(severity === 'fail' ? fail(check, more) : warn(check, more));
  }
  return kept;
}

/** Each check's worst severity and how many findings it has of each severity. */
export function summarizeChecks(
  findings: readonly Finding[],
): Array<{ check: string; severity: Finding['severity']; counts: Record<Finding['severity'], number> }> {
  const byCheck = new Map<string, { check: string; severity: Finding['severity']; counts: Record<Finding['severity'], number> }>();
  for (const f of findings) {
    let entry = byCheck.get(f.check);
    if (!entry) byCheck.set(f.check, (entry = { check: f.check, severity: 'pass', counts: { fail: 0, warn: 0, pass: 0 } }));
    entry.counts[f.severity]++;
    if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[entry.severity]) entry.severity = f.severity;
  }
  return [...byCheck.values()];
}
