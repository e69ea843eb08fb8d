import type { ConformanceReport } from './conformance-report';
import type { Finding } from '../finding';
import { formatBytes, formatCount, formatDuration } from './format-numbers';
import { terminalSafe } from './terminal-safe';

const LABEL = { fail: 'FAIL', warn: 'WARN', pass: 'PASS' } as const;

function evidenceLine(f: Finding): string | undefined {
  const parts: string[] = [];
  if (f.evidence.url) parts.push(f.evidence.url);
  if (f.evidence.field) parts.push(`field ${f.evidence.field}`);
  if (f.evidence.value !== undefined) parts.push(`value ${f.evidence.value}`);
  return parts.length ? parts.join(' · ') : undefined;
}

/**
 * The terminal summary: verdict, counts of checks and findings, crawl statistics, then the worst
 * findings first (at most `limit`; the HTML and JSON reports have them all).
 */
export function renderTerminalReport(report: ConformanceReport, options: { limit?: number; reportPaths?: { html: string; json: string } } = {}): string {
  const limit = options.limit ?? 20;
  const s = report.summary;
  const st = report.stats;
  const lines: string[] = [];
  lines.push(
    `Conformance of ${report.target} (${report.options.profile} profile, ids ${report.options.rawIds ? 'raw' : 'percent-encoded'}): ${s.ok ? 'PASS' : 'FAIL'}`,
  );
  lines.push(
    `  ${report.checks.length} checks: ${s.checks.pass} pass, ${s.checks.warn} warn, ${s.checks.fail} fail  (findings: ${formatCount(s.findings.fail)} failures, ${formatCount(s.findings.warn)} warnings)`,
  );
  lines.push(
    `  Crawl: ${formatCount(report.crawl.files.length)} files, ${formatCount(report.crawl.groups.length)} groups, ${formatCount(report.crawl.users.length)} users; ` +
      `${formatCount(st.requests)} requests, ${formatBytes(st.bytes)} in ${formatDuration(st.durationMs)} (${st.requestsPerSecond} req/s, ${formatBytes(st.bytesPerSecond)}/s, up to ${st.maxInFlight} in flight)`,
  );
  lines.push(
    `  Latency: p50 ${st.latencyMs.p50} ms, p90 ${st.latencyMs.p90} ms, p99 ${st.latencyMs.p99} ms, max ${st.latencyMs.max} ms${st.retries ? `; ${st.retries} retries after Retry-After` : ''}${st.slowdowns ? `; slowed down ${st.slowdowns}× on low rate-limit headroom` : ''}`,
  );
  const bad = report.findings.filter((f) => f.severity !== 'pass');
  if (bad.length) {
    lines.push('', bad.some((f) => f.severity === 'fail') ? 'Worst findings first:' : 'Warnings:');
    for (const f of bad.slice(0, limit)) {
      lines.push(`  ${LABEL[f.severity]} ${f.check}  ${f.message}`);
      const e = evidenceLine(f);
      if (e) lines.push(`       ${e}`);
    }
    if (bad.length > limit) lines.push(`  …and ${formatCount(bad.length - limit)} more in the report.`);
  }
  const failing = report.checks.filter((c) => c.severity !== 'pass');
  if (failing.length) {
    lines.push('', 'Checks not passing:');
    for (const c of failing)
      lines.push(
        `  ${LABEL[c.severity]} ${c.check} (${c.counts.fail ? `${c.counts.fail} fail` : `${c.counts.warn} warn`}): ${c.title}${c.rule ? ` — rule: ${c.rule}` : ''}`,
      );
  }
  if (options.reportPaths) {
    lines.push('', `HTML report: ${options.reportPaths.html}`, `JSON report: ${options.reportPaths.json}`);
  }
  return lines.map(terminalSafe).join('\n');
}
