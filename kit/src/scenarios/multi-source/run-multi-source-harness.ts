import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { Adapter } from 'content-gateway';
import { createFilesystemAdapter } from 'content-gateway';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from 'content-gateway';
import { createWorkManagementAdapter } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { accessInputFromCrawl, EffectiveAccess } from 'content-gateway/conformance';
import type { ConformanceReport } from 'content-gateway/conformance';
import { runConformance } from 'content-gateway/conformance';
import { writeReports } from 'content-gateway/conformance';
import { createApp } from 'content-gateway';
import { listenOnLoopback } from 'content-gateway/lib';
import { normalizeEmail } from 'content-gateway/lib';
import type { Logger } from 'content-gateway/logging';
import { parsePolicy } from 'content-gateway';
import type { Policy } from 'content-gateway';
import { runSync, type SyncSummary } from 'content-gateway';
import { applyChangeRound } from '../change-round';
import { compareAccess, type AccessComparison } from '../compare-access';
import { startHarnessMock } from '../harness-mock';
import { openHarnessStaging } from '../harness-staging';
import { workManagementExpected } from '../work-management-expected';
import { filesystemModel, filesystemOracle, writeFilesystemTree, type FsModel } from './filesystem-fixture';
import { workManagementPeople } from './scenario-people';
import { BROKEN_POLICY_YAML, changeSqlSource, createSqlSource, POLICY_YAML, sqlMapping, sqlModel, sqlOracle, type SqlModel } from './sql-fixture';
import { OWN_GATEWAY_CRAWL_GAP_MS } from '../own-gateway-crawl-gap';

export interface MultiSourceOptions {
  seed: string;
  /** Tasks of the generated work-management organization. */
  tasks: number;
  /** Stage into this Postgres database (a schema of its own) instead of a SQLite file. */
  databaseUrl?: string;
  /** Self-test: sync the SQL source with a policy that forgets the clearance test, while the oracle keeps the intended one. */
  brokenPolicy?: boolean;
  out: string;
  logger: Logger;
  print(line: string): void;
}

export interface MultiSourceRound {
  label: string;
  syncs: SyncSummary[];
  report: ConformanceReport;
  access: AccessComparison;
}

export interface MultiSourceResult {
  ok: boolean;
  rounds: MultiSourceRound[];
  /** People (distinct normalised emails) by how many sources name them. */
  peopleBySources: Record<number, number>;
  changes: string[];
}

const SOURCES = { wm: 'wm', files: 'files', records: 'records' } as const;

interface Scenario {
  adapters: Adapter[];
  /** The access policy each source's sync compiles, by source name. */
  policies: Partial<Record<string, Policy>>;
  fsModel: FsModel;
  sql: SqlModel;
  sqlDb: Knex;
  fsRoot: string;
}

/**
 * Several internal systems, one gateway: the work-management organization (mock + adapter), a
 * folder tree (filesystem adapter) and a relational database with an attribute policy (SQL
 * adapter + access policy) feed one gateway; people appear in two or three of them under other
 * spellings of their email. The conformance crawler reads the gateway like the platform; every
 * (person, document) pair of its effective access is compared with an oracle that evaluates each
 * source's own model directly (the mock's visibility, the tree's rules, the policy's predicate):
 * before and after a round of changes (a person changes department, a record's level rises, a
 * person leaves the folder tree's directory, the organization's own change round).
 */
export async function runMultiSourceHarness(o: MultiSourceOptions): Promise<MultiSourceResult> {
  const cleanups: Array<() => Promise<void>> = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-multi-'));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  try {
    const mock = await startHarnessMock({ seed: o.seed, tasks: o.tasks, logger: o.logger, print: o.print });
    if (mock.close) cleanups.push(mock.close);
    const staging = await openHarnessStaging(work, o.databaseUrl);
    cleanups.push(staging.close);
    const blobs = new FsBlobStore(path.join(work, 'blobs'));
    const key = crypto.randomBytes(24).toString('hex');
    const { app } = await createApp({
      config: { publicBaseUrl: undefined },
      db: staging.db,
      blobs,
      logger: o.logger,
      apiKeys: [key],
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    const gateway = await listenOnLoopback(app);
    cleanups.push(gateway.close);
    o.print(`staging: ${staging.label}`);

    const people = await workManagementPeople(mock.client, mock.workspace, 12);
    const s = await setUpSources(work, mock, staging.db, people, o);
    cleanups.push(() => s.sqlDb.destroy());
    const peopleBySources = countSources(
      s,
      await (
        await mock.client.userEmails(mock.workspace)
      )((await mock.client.list<{ gid: string }>(`/users?workspace=${mock.workspace}`)).map((u) => u.gid)),
    );
    o.print(
      `people: ${Object.entries(peopleBySources)
        .map(([n, count]) => `${count} in ${n} source(s)`)
        .join(', ')}`,
    );

    const round = async (label: string, mode: 'full' | 'auto'): Promise<MultiSourceRound> => {
      const syncs: SyncSummary[] = [];
      for (const adapter of s.adapters)
        syncs.push(await runSync(adapter, { db: staging.db, blobs, logger: o.logger }, { mode, policy: s.policies[adapter.name] }));
      for (const sync of syncs)
        o.print(
          `[${label}] sync ${sync.source}: ${sync.mode} ${sync.status}, added ${sync.counts.added}, changed ${sync.counts.changed}, deleted ${sync.counts.deleted}, failed ${sync.counts.failed}`,
        );
      const report = await runConformance({
        baseUrl: gateway.url,
        key,
        profile: 'strict',
        rawIds: true,
        logger: o.logger,
        minCrawlGapMs: OWN_GATEWAY_CRAWL_GAP_MS,
      });
      writeReports(report, path.join(o.out, label.replace(/\W+/g, '-')));
      const access = await compare(report, s, mock.client, mock.workspace);
      o.print(`[${label}] conformance: ${report.summary.checks.pass} pass, ${report.summary.checks.warn} warn, ${report.summary.checks.fail} fail`);
      o.print(
        `[${label}] access: ${access.filesCompared} documents × ${access.filesCompared ? access.pairsCompared / access.filesCompared : 0} people = ${access.pairsCompared} pairs; over-exposed ${access.overExposed.length}, under-exposed ${access.underExposed.length}`,
      );
      for (const m of access.overExposed.slice(0, 10)) o.print(`  over-exposed: ${m.user} sees ${m.file}`);
      for (const m of access.underExposed.slice(0, 10)) o.print(`  under-exposed: ${m.user} cannot see ${m.file}`);
      return { label, syncs, report, access };
    };

    const rounds = [await round('initial', 'full')];
    const changes = [...(await changeSqlSource(s.sqlDb, s.sql)), ...changeFilesystem(s)];
    await applyChangeRound(mock.client, mock.workspace, o.print);
    for (const c of changes) o.print(`change: ${c}`);
    rounds.push(await round('after changes', 'auto'));
    const ok = rounds.every(
      (r) =>
        r.report.summary.ok &&
        r.syncs.every((x) => x.status === 'succeeded' && x.counts.failed === 0) &&
        r.access.overExposed.length === 0 &&
        r.access.underExposed.length === 0,
    );
    return { ok, rounds, peopleBySources, changes };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

async function setUpSources(
  work: string,
  mock: { url: string; token: string; workspace: string },
  db: Knex,
  people: Parameters<typeof filesystemModel>[0],
  o: MultiSourceOptions,
): Promise<Scenario> {
  const fsRoot = path.join(work, 'tree');
  const fsModel = filesystemModel(people);
  writeFilesystemTree(fsRoot, fsModel);
  const sqlFile = path.join(work, 'records.sqlite');
  const sqlDb = knex({ client: 'better-sqlite3', connection: { filename: sqlFile }, useNullAsDefault: true });
  const sql = sqlModel(people);
  await createSqlSource(sqlDb, sql);
  const policy = parsePolicy(o.brokenPolicy ? BROKEN_POLICY_YAML : POLICY_YAML);
  const sqlAdapter = createSqlAdapter({
    connection: parseDatabaseUrl(`sqlite:${sqlFile}`),
    mapping: resolveSqlMapping(sqlMapping()),
    sourceName: SOURCES.records,
    pageSize: 100,
  });
  const adapters: Adapter[] = [
    createWorkManagementAdapter({ baseUrl: `${mock.url}/api/1.0`, token: mock.token, workspace: mock.workspace, sourceName: SOURCES.wm }),
    createFilesystemAdapter({ root: fsRoot, sourceName: SOURCES.files, workerThread: false }),
    sqlAdapter,
  ];
  return { adapters, policies: { [SOURCES.records]: policy }, fsModel, sql, sqlDb, fsRoot };
}

/** A person leaves the folder tree's directory (inactive there), keeping what the other sources grant. */
function changeFilesystem(s: Scenario): string[] {
  const leaver = s.fsModel.users.find((u) => u.id === 'u2');
  if (!leaver) return [];
  leaver.active = false;
  writeFilesystemTree(s.fsRoot, s.fsModel);
  return [`${leaver.email.trim()} left the folder tree's directory`];
}

/** Every person some source has active (normalised emails): who the wildcard (`GROUP *`, a public folder) reaches. */
async function activePeople(s: Scenario, client: Parameters<typeof workManagementExpected>[0], workspace: string): Promise<Set<string>> {
  const emails = await client.userEmails(workspace);
  const wm = await emails((await client.request<{ data: string[] }>('GET', `/_oracle/users?workspace=${workspace}`)).data);
  return new Set([
    ...wm,
    ...s.fsModel.users.filter((u) => u.active).map((u) => normalizeEmail(u.email)),
    ...s.sql.people.filter((p) => p.active).map((p) => normalizeEmail(p.email)),
  ]);
}

/** How many sources name each person (by normalised email). */
function countSources(s: Scenario, wmEmails: readonly string[]): Record<number, number> {
  const sources = new Map<string, Set<string>>();
  const add = (email: string, source: string) => sources.set(normalizeEmail(email), (sources.get(normalizeEmail(email)) ?? new Set()).add(source));
  for (const e of wmEmails) add(e, 'wm');
  for (const u of s.fsModel.users) add(u.email, 'files');
  for (const p of s.sql.people) add(p.email, 'records');
  const out: Record<number, number> = {};
  for (const set of sources.values()) out[set.size] = (out[set.size] ?? 0) + 1;
  return out;
}

/** The crawl's effective access against the oracle of every source, people by normalised email. */
async function compare(
  report: ConformanceReport,
  s: Scenario,
  client: Parameters<typeof workManagementExpected>[0],
  workspace: string,
): Promise<AccessComparison> {
  const effective = new EffectiveAccess(accessInputFromCrawl(report.crawl));
  const granted = new Map<string, Set<string>>();
  for (const file of report.crawl.files) {
    if (file.listing.status === 'deleted') continue;
    granted.set(file.listing.id, new Set((effective.whoCanSee(file.listing.id)?.users ?? []).map((u) => normalizeEmail(u.email ?? u.id))));
  }
  const wmPrefix = `${SOURCES.wm}:`;
  const expected = new Map<string, readonly string[]>(await workManagementExpected(client, workspace, new Set(granted.keys()), wmPrefix));
  const everyone = await activePeople(s, client, workspace);
  for (const [file, who] of filesystemOracle(s.fsModel, everyone)) expected.set(`${SOURCES.files}:${file}`, [...who]);
  for (const [doc, who] of sqlOracle(s.sql)) expected.set(`${SOURCES.records}:${doc}`, [...who]);
  return compareAccess(expected, granted, everyone.size);
}
