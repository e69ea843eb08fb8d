import type { ConformanceReport } from './conformance-report';

/** The JSON report: the whole run (findings, statistics, the crawl itself), readable by `--report`. */
export function renderJsonReport(report: ConformanceReport): string {
  // Large crawls are written compactly; small ones indented for people reading them.
  return `${JSON.stringify(report, null, report.crawl.files.length > 5000 ? undefined : 2)}\n`;
}
