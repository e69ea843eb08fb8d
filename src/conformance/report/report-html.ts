import Mustache from 'mustache';
import { escapeHtml } from '../../lib/escape-html';
import type { ConformanceReport } from './conformance-report';
import type { LatencySummary } from '../crawl/crawl-record';
import { formatBytes, formatCount, formatDuration } from './format-numbers';
import { reportPageAssets } from './report-assets';
import { REPORT_PAGE_TEMPLATE } from './report-page-template';

/** JSON safe inside a <script> element: nothing in it can close the element or start markup. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** What the page's script needs: findings, statistics and the access graph (compact). */
function pageData(report: ConformanceReport) {
  const { crawl } = report;
  return {
    findings: report.findings,
    checks: report.checks,
    stats: report.stats,
    access: {
      users: crawl.users.map((u) => ({
        id: u.id,
        email: str(u.email) ?? null,
        name: str(u.fullName) ?? null,
        active: !(typeof u.state === 'string' && u.state.toLowerCase() === 'inactive'),
      })),
      groups: crawl.groups.map((g) => ({ id: g.id, name: str(g.name) ?? null, members: (g.members?.entries ?? []).map((m) => [m.type, m.id]) })),
      files: crawl.files.map((f) => ({
        id: f.listing.id,
        name: str(f.listing.name) ?? null,
        status: str(f.listing.status) ?? null,
        mime: str(f.listing.mimeType) ?? null,
        permissions: (f.permissions?.entries ?? []).map((p) => [p.type, p.id, p.action ?? null]),
      })),
    },
  };
}

const card = (label: string, value: string) => ({ label, value });

/** The cards at the top: the verdict's counts, what was crawled, and how fast. */
function summaryCards(report: ConformanceReport) {
  const s = report.summary;
  const st = report.stats;
  const { crawl } = report;
  return [
    card('Checks failing', String(s.checks.fail)),
    card('Checks warning', String(s.checks.warn)),
    card('Checks passing', String(s.checks.pass)),
    card('Files / groups / users', `${formatCount(crawl.files.length)} / ${formatCount(crawl.groups.length)} / ${formatCount(crawl.users.length)}`),
    card('Requests', formatCount(st.requests)),
    card('Bytes received', formatBytes(st.bytes)),
    card('Throughput', `${st.requestsPerSecond} req/s · ${formatBytes(st.bytesPerSecond)}/s`),
    card('Latency p50 / p90 / p99', `${st.latencyMs.p50} / ${st.latencyMs.p90} / ${st.latencyMs.p99} ms`),
  ];
}

/** The crawl-statistics cards: duration, concurrency reached, retries and pacing. */
function statCards(report: ConformanceReport) {
  const st = report.stats;
  return [
    card('Duration', formatDuration(st.durationMs)),
    card('Most requests in flight', String(st.maxInFlight)),
    card('Retries after Retry-After', formatCount(st.retries)),
    card('Slow-downs / time paced', `${st.slowdowns} / ${formatDuration(st.pacedMs)}`),
  ];
}

/** One row per check: its result, what it checks, and its finding counts. */
function checkRows(report: ConformanceReport) {
  return report.checks.map((c) => ({
    check: c.check,
    severity: c.severity,
    SEVERITY: c.severity.toUpperCase(),
    title: c.title,
    rule: c.rule ?? '',
    ...c.counts,
  }));
}

const latencyRow = (l: LatencySummary | undefined) => ({
  count: formatCount(l?.count ?? 0),
  p50: l?.p50 ?? 0,
  p90: l?.p90 ?? 0,
  p99: l?.p99 ?? 0,
  max: l?.max ?? 0,
  mean: l?.mean ?? 0,
});

/** Status codes in order, with how many responses carried each. */
function statusRows(report: ConformanceReport) {
  return Object.entries(report.stats.statusCounts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => ({ status, count: formatCount(n) }));
}

/** Mustache's escape, with ours: it leaves `/` and `=` readable, as in every other page here. */
const escapeValue = (value: unknown): string => escapeHtml(String(value));

/**
 * A single-file HTML report a person can open anywhere: no external assets (inline CSS and script,
 * and a Content-Security-Policy that forbids loading anything and runs only those, by hash), every value from the gateway
 * escaped (the template escapes every value, data goes in as script-safe JSON rendered through
 * textContent).
 */
export function renderHtmlReport(report: ConformanceReport): string {
  const verdict = report.summary.ok ? 'pass' : 'fail';
  const { options } = report;
  const view = {
    ...reportPageAssets(),
    data: scriptSafeJson(pageData(report)),
    target: report.target,
    verdict,
    VERDICT: verdict.toUpperCase(),
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    duration: formatDuration(report.durationMs),
    concurrency: options.concurrency,
    authForm: options.authForm,
    profile: options.profile,
    ids: options.rawIds ? 'raw' : 'percent-encoded',
    summaryCards: summaryCards(report),
    checks: checkRows(report),
    statCards: statCards(report),
    latencyAll: latencyRow(report.stats.latencyMs),
    latencyByKind: Object.entries(report.stats.latencyByKind).map(([kind, l]) => ({ kind, ...latencyRow(l) })),
    statuses: statusRows(report),
    accessPolicy: report.accessPolicy,
    formatVersion: report.formatVersion,
  };
  return Mustache.render(REPORT_PAGE_TEMPLATE, view, {}, { escape: escapeValue });
}
