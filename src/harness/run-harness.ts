import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorkManagementAdapter } from '../adapters/work-management';
import { FsBlobStore } from '../blobs/fs-blob-store';
import { accessInputFromCrawl, EffectiveAccess } from '../conformance/effective-access';
import type { ConformanceReport } from '../conformance/conformance-report';
import { runConformance } from '../conformance/run-conformance';
import { writeReports } from '../conformance/write-reports';
import { createApp } from '../http/create-app';
import { listenOnLoopback } from '../lib/listen-on-loopback';
import type { Logger } from '../logging/create-logger';
import { createWorkManagementMock } from '../mocks/work-management/create-mock-server';
import { createDb } from '../staging/create-db';
import { migrateLatest } from '../staging/run-migrations';
import { runSync, type SyncSummary } from '../sync/run-sync';
import { compareAccess, type AccessComparison } from './compare-access';
import { applyChangeRound, type ChangeRound } from './change-round';
import { MockClient } from './mock-client';

export interface HarnessOptions {
  seed: string;
  /** Tasks the generated organization has (at least 1,000 for the issue's scenario). */
  tasks: number;
  /** An already running mock (`mock work-management`); default: start one in this process. */
  mockUrl?: string;
  mockToken?: string;
  /** Turn the mock's default hostility (rate limits) on; off by default so the scenario is quick. */
  hostile?: boolean;
  out: string;
  logger: Logger;
  print(line: string): void;
}

export interface HarnessRound {
  label: string;
  sync: SyncSummary;
  report: ConformanceReport;
  reportPaths: { html: string; json: string };
  access: AccessComparison;
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

export interface HarnessResult {
  ok: boolean;
  rounds: HarnessRound[];
  changes?: ChangeRound;
}

const SOURCE = 'wm';


/**
 * The end-to-end scenario: a generated organization in the work-management mock, synced by the
 * work-management adapter into a fresh staging database, served by the gateway, crawled by the
 * conformance harness like the platform would, and every (user, file) pair of the crawl's
 * effective access compared with the mock's own visibility oracle; then the organization changes,
 * an incremental sync runs, and everything is crawled and compared again.
 */
export async function runHarness(o: HarnessOptions): Promise<HarnessResult> {
  const cleanups: Array<() => Promise<void>> = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-harness-'));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  try {
    let mockUrl = o.mockUrl;
    let token = o.mockToken;
    if (!mockUrl) {
      const mock = createWorkManagementMock({ seed: o.seed, size: { tasks: o.tasks, personalWorkspace: false }, ...(o.hostile ? {} : { hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 } }) });
      const server = await listenOnLoopback(mock.app);
      cleanups.push(server.close);
      mockUrl = server.url;
      token = mock.token;
      o.print(`work-management mock: ${mock.model.tasks.size} tasks, ${mock.model.users.size} users, seed ${o.seed}, at ${mockUrl}`);
    }
    if (!token) throw new Error('--mock-token is required with --mock-url');
    const mockClient = new MockClient(mockUrl, token);
    const workspaces = await mockClient.request<{ data: Array<{ gid: string; is_organization: boolean; name: string }> }>('GET', '/api/1.0/workspaces?opt_fields=name,is_organization');
    const workspace = workspaces.data.find((w) => w.is_organization) ?? workspaces.data[0];
    if (!workspace) throw new Error('the mock has no workspace');

    const db = createDb({ sqlitePath: path.join(work, 'staging.sqlite') });
    cleanups.push(() => db.destroy());
    await migrateLatest(db);
    const blobs = new FsBlobStore(path.join(work, 'blobs'));
    const adapter = createWorkManagementAdapter({ baseUrl: `${mockUrl}/api/1.0`, token, workspace: workspace.gid, sourceName: SOURCE });
    const key = crypto.randomBytes(24).toString('hex');
    const { app } = await createApp({ config: { publicBaseUrl: undefined }, db, blobs, logger: o.logger, apiKeys: [key], skipTokenSecret: crypto.randomBytes(32).toString('hex') });
    const gateway = await listenOnLoopback(app);
    cleanups.push(gateway.close);

    const round = async (label: string, mode: 'full' | 'auto', extraChecks: (sync: SyncSummary) => Promise<HarnessRound['checks']> = async () => []): Promise<HarnessRound> => {
      const sync = await runSync(adapter, { db, blobs, logger: o.logger }, { mode });
      o.print(`[${label}] sync: ${sync.mode} ${sync.status} — added ${sync.counts.added}, changed ${sync.counts.changed}, unchanged ${sync.counts.unchanged}, deleted ${sync.counts.deleted}, failed ${sync.counts.failed} in ${(sync.durationMs / 1000).toFixed(1)} s`);
      const report = await runConformance({ baseUrl: gateway.url, key, profile: 'strict', logger: o.logger, minCrawlGapMs: 1100 });
      const reportPaths = writeReports(report, path.join(o.out, label.replace(/\W+/g, '-')));
      const access = await compare(report);
      const checks = [
        { name: 'sync succeeded without failures', ok: sync.status === 'succeeded' && sync.counts.failed === 0, detail: `${sync.status}, ${sync.counts.failed} failed${sync.error ? `: ${sync.error}` : ''}` },
        ...(await extraChecks(sync)),
      ];
      const c = report.summary.checks;
      o.print(`[${label}] conformance: ${c.pass} pass, ${c.warn} warn, ${c.fail} fail (${report.stats.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s)`);
      o.print(`[${label}] access: ${access.filesCompared} files × users = ${access.pairsCompared} pairs compared with the oracle; over-exposed ${access.overExposed.length}, under-exposed ${access.underExposed.length}`);
      for (const m of [...access.overExposed.slice(0, 10).map((m) => `over-exposed: ${m.user} sees ${m.file}`), ...access.underExposed.slice(0, 10).map((m) => `under-exposed: ${m.user} cannot see ${m.file}`)]) o.print(`  ${m}`);
      for (const check of checks) o.print(`[${label}] ${check.ok ? 'ok  ' : 'FAIL'} ${check.name} (${check.detail})`);
      o.print(`[${label}] HTML report: ${reportPaths.html}`);
      return { label, sync, report, reportPaths, access, checks };
    };

    /** Gateway (crawled) vs oracle, keyed by the mock's own names (`task:<gid>`, user gids). */
    const compare = async (report: ConformanceReport): Promise<AccessComparison> => {
      const effective = new EffectiveAccess(accessInputFromCrawl(report.crawl));
      const granted = new Map<string, Set<string>>();
      for (const file of report.crawl.files) {
        if (file.listing.status === 'deleted' || !file.listing.id.startsWith(`${SOURCE}:`)) continue;
        const who = effective.whoCanSee(file.listing.id);
        granted.set(file.listing.id.slice(SOURCE.length + 1), new Set((who?.users ?? []).map((u) => u.id.slice(SOURCE.length + 1))));
      }
      const expected = new Map<string, string[]>();
      for (const [gid, users] of await mockClient.visibility('task')) expected.set(`task:${gid}`, users);
      const attachments = await mockClient.visibility('attachment');
      for (const [gid, users] of attachments) {
        const id = `attachment:${gid}`;
        if (granted.has(id)) {
          expected.set(id, users);
          continue;
        }
        // Not served: fine when the platform could not index it (type, or not stored by the service).
        const a = await mockClient.request<{ data: { name: string; host: string } }>('GET', `/api/1.0/attachments/${gid}?opt_fields=name,host`);
        if (a.data.host === 'asana' && /\.(pdf|docx|pptx|txt)$/i.test(a.data.name)) expected.set(id, users);
      }
      const population = (await mockClient.request<{ data: string[] }>('GET', `/_oracle/users?workspace=${workspace.gid}`)).data.length;
      return compareAccess(expected, granted, population);
    };

    const rounds: HarnessRound[] = [await round('initial', 'full')];
    const changes = await applyChangeRound(mockClient, workspace.gid, o.print);
    rounds.push(
      await round('after changes', 'auto', async (sync) => {
        const res = await fetch(`${gateway.url}/v1/files/${encodeURIComponent(`${SOURCE}:task:${changes.editedComment.task}`)}`, { headers: { Authorization: `Bearer ${key}` } });
        const body = res.ok ? ((await res.json()) as { value: { content: { body?: string } } }).value.content.body ?? '' : '';
        const escaped = changes.editedComment.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
        const deleted = await Promise.all(
          changes.deletedTasks.map(async (gid) => {
            const r = await fetch(`${gateway.url}/v1/files/${encodeURIComponent(`${SOURCE}:task:${gid}`)}`, { headers: { Authorization: `Bearer ${key}` } });
            return r.ok ? ((await r.json()) as { value: { status: string } }).value.status : String(r.status);
          }),
        );
        return [
          { name: 'edited comment served in the task body', ok: body.includes(escaped), detail: `task ${changes.editedComment.task}` },
          { name: 'deleted tasks served as tombstones', ok: deleted.every((s) => s === 'deleted'), detail: deleted.join(', ') },
          { name: 'the changes were picked up incrementally', ok: sync.mode === 'incremental', detail: `${sync.mode}${sync.fellBackToFull ? ` (${sync.fellBackToFull})` : ''}` },
        ];
      }),
    );
    const ok = rounds.every((r) => r.report.summary.ok && r.access.overExposed.length === 0 && r.access.underExposed.length === 0 && r.checks.every((c) => c.ok));
    return { ok, rounds, changes };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
