import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accessInputFromCrawl, EffectiveAccess } from 'content-gateway/conformance';
import type { ConformanceReport } from 'content-gateway/conformance';
import { runConformance } from 'content-gateway/conformance';
import { writeReports } from 'content-gateway/conformance';
import { escapeHtml } from 'content-gateway/lib';
import { normalizeEmail } from 'content-gateway/lib';
import type { SyncSummary } from 'content-gateway';
import { compareAccess, type AccessComparison } from './compare-access';
import { applyChangeRound, type ChangeRound } from './change-round';
import { HARNESS_SOURCE, startHarnessGateway, type HarnessGateway } from './harness-gateway';
import { startHarnessMock, type HarnessMock, type HarnessMockOptions } from './harness-mock';
import { workManagementExpected } from './work-management-expected';
import { OWN_GATEWAY_CRAWL_GAP_MS } from './own-gateway-crawl-gap';

/** The mock's settings (seed, size, hostility, faults, event loss) and the crawl's. */
export interface HarnessOptions extends HarnessMockOptions {
  /** Access reconciliation after incremental runs (default on; off shows what lost events cost). */
  reconcile?: boolean;
  /** Stage into this Postgres database (in a schema of its own, dropped afterwards) instead of a SQLite file. */
  databaseUrl?: string;
  /** Crawl with ids pasted into paths raw, as the platform's own tools send them (default true). */
  rawIds?: boolean;
  /** The gateway receives the mock's webhooks: each delivery asks for an incremental run, checked like the others. */
  webhooks?: boolean;
  out: string;
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
  /** Events the change round caused, and how many of them the mock never delivered. */
  events?: { caused: number; lost: number };
}

const SOURCE = HARNESS_SOURCE;

/** What every round works with: the options, the running mock and the gateway it feeds. */
interface HarnessScene {
  o: HarnessOptions;
  mock: HarnessMock;
  gateway: HarnessGateway;
}

/** Checks a round adds to "sync succeeded", given its sync. */
type ExtraChecks = (sync: SyncSummary) => Promise<HarnessRound['checks']>;

/** What the change round did, and which of its events the mock delivered. */
interface ChangeOutcome {
  changes: ChangeRound;
  events: { caused: number; lost: number };
  /** The comment edit's event was delivered (else only a full run brings the edit). */
  editAnnounced: boolean;
}

/**
 * Gateway (crawled) vs oracle, keyed by the mock's own names for files (`task:<gid>`) and by
 * normalised email for people: the gateway serves one user per person, the platform maps
 * users by email, and the oracle names the mock's user gids.
 */
async function compareWithOracle(mock: HarnessMock, report: ConformanceReport): Promise<AccessComparison> {
  const effective = new EffectiveAccess(accessInputFromCrawl(report.crawl));
  const granted = new Map<string, Set<string>>();
  for (const file of report.crawl.files) {
    if (file.listing.status === 'deleted' || !file.listing.id.startsWith(`${SOURCE}:`)) continue;
    const who = effective.whoCanSee(file.listing.id);
    granted.set(file.listing.id.slice(SOURCE.length + 1), new Set((who?.users ?? []).map((u) => normalizeEmail(u.email ?? u.id))));
  }
  const expected = await workManagementExpected(mock.client, mock.workspace, new Set(granted.keys()));
  const population = (await mock.client.request<{ data: string[] }>('GET', `/_oracle/users?workspace=${mock.workspace}`)).data.length;
  return compareAccess(expected, granted, population);
}

/** A round's outcome, as the scenario prints it. */
function printRound(print: (line: string) => void, r: HarnessRound): void {
  const c = r.report.summary.checks;
  const { access } = r;
  print(
    `[${r.label}] conformance: ${c.pass} pass, ${c.warn} warn, ${c.fail} fail (${r.report.stats.requests} requests in ${(r.report.durationMs / 1000).toFixed(1)} s)`,
  );
  print(
    `[${r.label}] access: ${access.filesCompared} files × users = ${access.pairsCompared} pairs compared with the oracle; over-exposed ${access.overExposed.length}, under-exposed ${access.underExposed.length}`,
  );
  for (const m of [
    ...access.overExposed.slice(0, 10).map((m) => `over-exposed: ${m.user} sees ${m.file}`),
    ...access.underExposed.slice(0, 10).map((m) => `under-exposed: ${m.user} cannot see ${m.file}`),
  ])
    print(`  ${m}`);
  for (const check of r.checks) print(`[${r.label}] ${check.ok ? 'ok  ' : 'FAIL'} ${check.name} (${check.detail})`);
  print(`[${r.label}] HTML report: ${r.reportPaths.html}`);
}

/** One round: sync, crawl like the platform, write the reports, compare with the oracle, check. */
async function runRound(
  scene: HarnessScene,
  label: string,
  mode: 'full' | 'auto' | 'webhooks',
  extraChecks: ExtraChecks = async () => [],
): Promise<HarnessRound> {
  const { o, gateway } = scene;
  const sync = mode === 'webhooks' ? await lastWebhookRun(gateway) : await gateway.sync(mode, o.reconcile ?? true);
  o.print(`[${label}] sync: ${describeSync(sync)}`);
  const report = await runConformance({
    baseUrl: gateway.url,
    key: gateway.key,
    profile: 'strict',
    rawIds: o.rawIds ?? true,
    logger: o.logger,
    minCrawlGapMs: OWN_GATEWAY_CRAWL_GAP_MS,
  });
  const reportPaths = writeReports(report, path.join(o.out, label.replace(/\W+/g, '-')));
  const access = await compareWithOracle(scene.mock, report);
  const checks = [
    {
      name: 'sync succeeded without failures',
      ok: sync.status === 'succeeded' && sync.counts.failed === 0,
      detail: `${sync.status}, ${sync.counts.failed} failed${sync.error ? `: ${sync.error}` : ''}`,
    },
    ...(await extraChecks(sync)),
  ];
  const round = { label, sync, report, reportPaths, access, checks };
  printRound(o.print, round);
  return round;
}

/** The round of changes in the mock, and how many of the events it caused were lost. */
async function changeTheOrganization(scene: HarnessScene): Promise<ChangeOutcome> {
  const { client, workspace } = scene.mock;
  const before = await client.eventHead();
  const changes = await applyChangeRound(client, workspace, scene.o.print);
  const head = await client.eventHead();
  const delivered = (await client.deliveredEvents(before)).filter((e) => e.seq <= head);
  const events = { caused: head - before, lost: head - before - delivered.length };
  const editAnnounced = delivered.some((e) => e.resource.gid === changes.editedComment.story);
  scene.o.print(
    `change round: ${events.caused} events, ${events.lost} of them lost${events.lost > 0 && !editAnnounced ? ' (the comment edit among them)' : ''}`,
  );
  return { changes, events, editAnnounced };
}

/** Whether a task page shows a comment's text, escaped as the task template escapes it (`'` too). */
export function commentServed(body: string, text: string): boolean {
  return body.includes(escapeHtml(text));
}

/** The edited comment is in the served task body (`strict`), or may still wait for a full run. */
async function commentCheck(scene: HarnessScene, changes: ChangeRound, strict: boolean): Promise<HarnessRound['checks'][number]> {
  const body = (await scene.gateway.readFile(`task:${changes.editedComment.task}`))?.body ?? '';
  const served = commentServed(body, changes.editedComment.text);
  // A comment edit moves no clock: when its event is lost, only a full run brings it (the bound for content).
  const ok = served || !strict;
  return {
    name: 'edited comment served in the task body',
    ok,
    detail: `task ${changes.editedComment.task}${served ? '' : ' — its event was lost: the page waits for the next full run'}`,
  };
}

/** After the incremental run: the comment edit (if announced), tombstones, and an incremental mode. */
function afterChangesChecks(scene: HarnessScene, { changes, editAnnounced }: ChangeOutcome): ExtraChecks {
  return async (sync) => {
    const deleted = await Promise.all(changes.deletedTasks.map(async (gid) => (await scene.gateway.readFile(`task:${gid}`))?.status ?? 'not served'));
    return [
      await commentCheck(scene, changes, editAnnounced),
      { name: 'deleted tasks served as tombstones', ok: deleted.every((s) => s === 'deleted'), detail: deleted.join(', ') },
      {
        name: 'the changes were picked up incrementally',
        ok: sync.mode === 'incremental',
        detail: `${sync.mode}${sync.fellBackToFull ? ` (${sync.fellBackToFull})` : ''}`,
      },
    ];
  };
}

/** The last of the runs webhook deliveries asked for, once none is running or asked for. */
async function lastWebhookRun(gateway: HarnessGateway): Promise<SyncSummary> {
  await gateway.webhookSyncsIdle();
  const runs = gateway.webhookRuns();
  const last = runs[runs.length - 1];
  if (!last) throw new Error('no webhook delivery asked for a run');
  return last;
}

/** The rounds: initial, after the changes (incremental), and after a full run when events were lost. */
async function runRounds(scene: HarnessScene): Promise<HarnessResult> {
  const rounds: HarnessRound[] = [await runRound(scene, 'initial', 'full')];
  const outcome = await changeTheOrganization(scene);
  if (scene.o.webhooks) {
    await scene.gateway.webhookSyncsIdle();
    if (scene.gateway.webhookRuns().length > 0) rounds.push(await runRound(scene, 'after webhook runs', 'webhooks'));
    else scene.o.print('[after webhook runs] no delivery arrived (all lost): polling is the fallback');
  }
  rounds.push(await runRound(scene, 'after changes', 'auto', afterChangesChecks(scene, outcome)));
  if (outcome.events.lost > 0) rounds.push(await runRound(scene, 'after a full run', 'full', async () => [await commentCheck(scene, outcome.changes, true)]));
  const ok = rounds.every((r) => r.report.summary.ok && r.access.overExposed.length === 0 && r.access.underExposed.length === 0 && r.checks.every((c) => c.ok));
  return { ok, rounds, changes: outcome.changes, events: outcome.events };
}

/**
 * The end-to-end scenario: a generated organization in the work-management mock, synced by the
 * work-management adapter into a fresh staging database, served by the gateway, crawled by the
 * conformance harness like the platform would, and every (user, file) pair of the crawl's
 * effective access compared with the mock's own visibility oracle; then the organization changes,
 * an incremental sync runs, and everything is crawled and compared again. When the mock loses
 * events, a full run follows: content a lost event left stale must have converged after it.
 */
export async function runHarness(o: HarnessOptions): Promise<HarnessResult> {
  const cleanups: Array<() => Promise<void>> = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-harness-'));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  try {
    const mock = await startHarnessMock(o);
    if (mock.close) cleanups.push(mock.close);
    const gateway = await startHarnessGateway(mock, {
      work,
      logger: o.logger,
      ...(o.databaseUrl ? { databaseUrl: o.databaseUrl } : {}),
      ...(o.webhooks ? { webhooks: true } : {}),
    });
    cleanups.push(gateway.close);
    o.print(`staging: ${gateway.stagingLabel}`);
    return await runRounds({ o, mock, gateway });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

function describeSync(sync: SyncSummary): string {
  const c = sync.counts;
  const r = sync.reconciliation;
  const reconciled = r
    ? `; reconciled against ${r.listed} listed files (${r.unlisted} more asked about), changes no event announced: ${r.unannounced} (access lists ${r.accessRewritten}, deletions ${r.deleted}, files read again ${r.refreshed})`
    : '';
  return `${sync.mode} ${sync.status} — added ${c.added}, changed ${c.changed}, unchanged ${c.unchanged}, deleted ${c.deleted}, failed ${c.failed} in ${(sync.durationMs / 1000).toFixed(1)} s${reconciled}`;
}
