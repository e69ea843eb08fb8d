// The conformance suite's one public entry: the CLI, the kit (platform simulator, scenarios) and the
// platform's usage report import from here, never from the rooms below (crawl/, checks/, access/, report/).
export { loadExpectations } from './access/access-expectations';
export { EffectiveAccess, accessInputFromCrawl, classifyEntry } from './access/effective-access';
export { renderFileAccess, renderUserAccess } from './access/render-access-answer';
export { isProfile, PROFILES, type Profile } from './conformance-profile';
export type { CrawlRecord, CrawlStats, ListingSummary } from './crawl/crawl-record';
export type { AuthForm } from './crawl/gateway-client';
export { preflightGateway } from './crawl/preflight-gateway';
export { idPath } from './crawl/raw-id-path';
export type { Finding } from './finding';
export { readReport, type ConformanceReport } from './report/conformance-report';
export { renderTerminalReport } from './report/report-terminal';
export { DEFAULT_REPORT_DIR, writeReports } from './report/write-reports';
export { crawlForAccess, runConformance, type ConformanceOptions } from './run-conformance';
