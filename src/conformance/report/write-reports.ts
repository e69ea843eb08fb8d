import fs from 'node:fs';
import path from 'node:path';
import type { ConformanceReport } from './conformance-report';
import { renderHtmlReport } from './report-html';
import { renderJsonReport } from './report-json';

export const DEFAULT_REPORT_DIR = 'conformance-report';

/** Writes `conformance-report.json` and `conformance-report.html` into `dir` (created if needed). */
export function writeReports(report: ConformanceReport, dir: string): { html: string; json: string } {
  const out = path.resolve(dir);
  fs.mkdirSync(out, { recursive: true });
  const json = path.join(out, 'conformance-report.json');
  const html = path.join(out, 'conformance-report.html');
  fs.writeFileSync(json, renderJsonReport(report));
  fs.writeFileSync(html, renderHtmlReport(report));
  return { html, json };
}
