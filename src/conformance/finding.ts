/** How bad a finding is: `fail` breaks the platform's crawl or access, `warn` costs or risks something. */
export type Severity = 'fail' | 'warn' | 'pass';

/** Where a finding was seen: the request URL, the field or header, and the offending value. */
export interface Evidence {
  url?: string;
  field?: string;
  value?: string;
}

/** One result of one check: `check` names the check (e.g. `files.checksum-sha256`). */
export interface Finding {
  check: string;
  severity: Severity;
  message: string;
  evidence: Evidence;
}

export const SEVERITY_RANK: Record<Severity, number> = { fail: 2, warn: 1, pass: 0 };

/** Evidence values are shown to people and stored in reports: keep them short. */
export function showValue(value: unknown, max = 300): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function evidence(e: { url?: string | undefined; field?: string | undefined; value?: unknown }): Evidence {
  const out: Evidence = {};
  if (e.url !== undefined) out.url = e.url;
  if (e.field !== undefined) out.field = e.field;
  if ('value' in e && e.value !== undefined) out.value = showValue(e.value);
  return out;
}

export function fail(check: string, message: string, e: { url?: string | undefined; field?: string | undefined; value?: unknown } = {}): Finding {
  return { check, severity: 'fail', message, evidence: evidence(e) };
}

export function warn(check: string, message: string, e: { url?: string | undefined; field?: string | undefined; value?: unknown } = {}): Finding {
  return { check, severity: 'warn', message, evidence: evidence(e) };
}

export function pass(check: string, message: string, e: { url?: string | undefined; field?: string | undefined; value?: unknown } = {}): Finding {
  return { check, severity: 'pass', message, evidence: evidence(e) };
}

/** Worst findings first; within a severity, in `order` of checks (then as found). */
export function sortFindings(findings: readonly Finding[], order: readonly string[] = []): Finding[] {
  const rank = new Map(order.map((id, i) => [id, i]));
  const position = (check: string) => rank.get(check) ?? order.length;
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_RANK[b.f.severity] - SEVERITY_RANK[a.f.severity] || position(a.f.check) - position(b.f.check) || a.i - b.i)
    .map(({ f }) => f);
}
