export type { ConformanceReport } from './conformance-report';
export type { CrawlRecord, CrawlStats, ListingSummary } from './crawl-record';
export { EffectiveAccess, accessInputFromCrawl, classifyEntry } from './effective-access';
export type { Finding } from './finding';
export { idPath } from './raw-id-path';
export { runConformance } from './run-conformance';
export { writeReports } from './write-reports';
