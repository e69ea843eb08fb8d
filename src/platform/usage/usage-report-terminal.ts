import type { FileUsage, UsageReport } from './usage-report';

/** Control characters in names from a gateway shown as escapes, so they cannot drive the terminal. */
const safe = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const n = (v: number): string => v.toLocaleString('en-US');
const cut = (text: string, width: number): string => (text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`);

function table(rows: readonly FileUsage[], width: number): string[] {
  const head = `  ${'file'.padEnd(width)}  ${'status'.padEnd(7)}  ${'surfaced'.padStart(8)}  ${'cited'.padStart(6)}  ${'helpful'.padStart(7)}  ${'unhelpful'.padStart(9)}`;
  return [
    head,
    `  ${'─'.repeat(head.length - 2)}`,
    ...rows.map(
      (f) =>
        `  ${cut(safe(f.id), width)}  ${f.status.padEnd(7)}  ${n(f.surfaced).padStart(8)}  ${n(f.cited).padStart(6)}  ${n(f.helpful).padStart(7)}  ${n(f.unhelpful).padStart(9)}`,
    ),
  ];
}

/** The report for a terminal: totals, the most used files, stale citations, never-surfaced files, and what it cost the platform. */
export function renderUsageTerminal(report: UsageReport, options: { top?: number; htmlPath?: string } = {}): string {
  const t = report.totals;
  const top = options.top ?? 20;
  const used = report.files.filter((f) => f.surfaced > 0);
  const width = Math.min(60, Math.max(20, ...used.slice(0, top).map((f) => f.id.length)));
  const lines = [
    `Usage of ${safe(report.gatewayUrl)} by the assistant (Data API ${safe(report.dataApiUrl)}${report.scope ? `, ${safe(report.scope)}` : ''})`,
    // The surfaced and cited figures count every file of the report, stale ones too: say so, or they read as more than the active files.
    `  ${n(t.files)} files (${n(t.activeFiles)} active): ${n(t.surfacedFiles)} surfaced, ${n(t.citedFiles)} cited; ${n(report.neverSurfaced.length)} active never surfaced`,
    `  ${n(t.surfaced)} times surfaced, ${n(t.cited)} cited; feedback on citing answers: ${n(t.helpful)} helpful, ${n(t.unhelpful)} unhelpful (${n(t.ratings)} ratings in all)`,
    '',
    used.length ? `Most cited files (${Math.min(top, used.length)} of ${n(used.length)}):` : 'No answer surfaced any file of this gateway yet.',
    ...(used.length ? table(used.slice(0, top), width) : []),
  ];
  lines.push(
    '',
    report.staleCitations.length ? `Stale citations: ${report.staleCitations.length} cited file(s) no longer active at the gateway:` : 'Stale citations: none.',
  );
  if (report.staleCitations.length) lines.push(...table(report.staleCitations, width));
  if (!report.missingChecked)
    lines.push(
      "  (files the gateway no longer lists at all are looked for only with --source: without it they cannot be told apart from other connectors' records)",
    );
  if (report.neverSurfaced.length) {
    const shown = report.neverSurfaced.slice(0, 10).map((id) => `  ${safe(id)}`);
    lines.push(
      '',
      `Never surfaced (${n(report.neverSurfaced.length)}):`,
      ...shown,
      ...(report.neverSurfaced.length > 10 ? [`  … and ${n(report.neverSurfaced.length - 10)} more (--json or --html for all)`] : []),
    );
  }
  const c = report.counting;
  lines.push(
    '',
    `Platform requests: ${n(report.requests.platform)} (${n(c.batches)} batched counts, ${n(c.emptyBatches)} settled at once, ${n(c.listed)} listed, ${n(c.split)} split); gateway requests: ${n(report.requests.gateway)}; ${(report.elapsedMs / 1000).toFixed(1)} s`,
  );
  if (options.htmlPath) lines.push(`HTML report: ${options.htmlPath}`);
  return lines.join('\n');
}
