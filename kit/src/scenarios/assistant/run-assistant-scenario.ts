import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SyncSummary } from 'content-gateway';
import { addProjectMember, applyChangeRound, deactivateGuest, workspaceMembers } from '../change-round';
import { HARNESS_SOURCE, startHarnessGateway, type HarnessGateway } from '../harness-gateway';
import { startHarnessMock, type HarnessMock, type HarnessMockOptions } from '../harness-mock';
import { OracleView, UsageLedger, type JudgedAnswer } from './answer-judge';
import { askRound, summariseRound, type AskContext, type RoundSummary } from './ask-round';
import { writeAssistantReport, printAssistantSummary, scenarioChecks } from './assistant-report';
import type { AssistantScenarioResult, CycleReport, RevocationReport, ScenarioChanges } from './assistant-scenario-result';
import { breakAccess, type AccessBreak } from './break-access';
import { plantCodeNames } from './code-names';
import { checkDataApi } from './data-api-agreement';
import { gatewayFilesByUrl } from './gateway-files';
import { planQuestions, revocationProbes, revokedPairs, type Asker, type PlannedQuestion } from './question-plan';
import type { IngestSummary, ScenarioPlatform } from './scenario-platform';
import { startSimulatorPlatform } from './simulator-platform';
import { compareUsage, type UsageAgreement } from './usage-agreement';

export interface AssistantScenarioOptions extends HarnessMockOptions {
  /** Stage into this Postgres database (in a schema of its own, dropped afterwards) instead of a SQLite file. */
  databaseUrl?: string;
  /** Where the JSON report goes. */
  out: string;
  /** Questions every person asks in each round (half about tasks they may see, half about tasks they may not). */
  questionsPerUser: number;
  /** At most this many revoked (user, task) pairs are asked about after the change round (default 300). */
  probeLimit?: number;
  /** Sync + ingest cycles to wait for revoked access to stop appearing before giving up (default 3). */
  maxCycles?: number;
  /** Feedback on every n-th answer that cites something (default 3). */
  feedbackEvery?: number;
  reconcile?: boolean;
  /** Break access on purpose (a self-test of the leak counter: the scenario must then fail). */
  breakAccess?: AccessBreak;
}

interface Loop {
  mock: HarnessMock;
  gateway: HarnessGateway;
  platform: ScenarioPlatform;
  ctx: AskContext;
  judged: JudgedAnswer[];
}

async function oracleNow(mock: HarnessMock): Promise<{ tasks: Map<string, string[]>; view: OracleView }> {
  const tasks = await mock.client.visibility('task');
  return { tasks, view: new OracleView(tasks, await mock.client.visibility('attachment')) };
}

/** One sync (full the first time, then incremental where it can) and one ingest of the gateway by the platform. */
async function syncAndIngest(loop: Loop, mode: 'full' | 'auto', reconcile: boolean): Promise<{ sync: SyncSummary; ingest: IngestSummary }> {
  const sync = await loop.gateway.sync(mode, reconcile);
  const ingest = await loop.platform.ingest();
  loop.ctx.fileByUrl = await gatewayFilesByUrl(loop.gateway.url, loop.gateway.key);
  return { sync, ingest };
}

const syncLine = (s: SyncSummary) =>
  `${s.mode} ${s.status}: added ${s.counts.added}, changed ${s.counts.changed}, deleted ${s.counts.deleted}, failed ${s.counts.failed}`;

async function ask(
  loop: Loop,
  label: string,
  questions: Parameters<typeof askRound>[1],
  print: (line: string) => void,
): Promise<{ summary: RoundSummary; judged: JudgedAnswer[] }> {
  const round = await askRound(label, questions, loop.ctx);
  loop.judged.push(...round.judged);
  const s = summariseRound(round);
  print(
    `[${label}] ${s.questions} questions (${s.aboutVisible} about a task the asker may see, ${s.aboutHidden} about one they may not): ${s.answersCiting} answers cite ${s.citations} files; leaked ${s.leaked.length}, missed ${s.missed.length}`,
  );
  return { summary: s, judged: round.judged };
}

/**
 * After the change round: sync, ingest, and ask every revoked (user, task) pair (up to the
 * limit) until no answer cites a revoked task, counting the cycles it took. Pairs the change
 * granted are asked about in the same rounds: their tasks must be cited (a missed citation otherwise).
 */
async function revocationLoop(loop: Loop, probes: Parameters<typeof askRound>[1], o: AssistantScenarioOptions, rounds: RoundSummary[]): Promise<CycleReport[]> {
  const cycles: CycleReport[] = [];
  for (let cycle = 1; cycle <= (o.maxCycles ?? 3); cycle++) {
    const { sync, ingest } = await syncAndIngest(loop, 'auto', o.reconcile ?? true);
    o.print(`[cycle ${cycle}] sync: ${syncLine(sync)}; ingest: ${ingest.status}, ${ingest.files} files`);
    loop.ctx.oracle = (await oracleNow(loop.mock)).view;
    const { summary, judged } = await ask(loop, `changed access, cycle ${cycle}`, probes, o.print);
    rounds.push(summary);
    const stillCited = judged.filter((j) => j.leaked.includes(`${HARNESS_SOURCE}:task:${j.question.task}`)).length;
    const grantsMissed = judged.filter((j) => j.question.visible && j.missed).length;
    cycles.push({ cycle, sync: { mode: sync.mode, status: sync.status, failed: sync.counts.failed }, ingest, stillCited, grantsMissed });
    if (stillCited === 0 && grantsMissed === 0) break;
  }
  return cycles;
}

/** `usage` (the operator's report) for the gateway against the simulator, compared with the scenario's record. */
async function checkUsage(loop: Loop): Promise<UsageAgreement> {
  const report = await loop.platform.usage({ url: loop.gateway.url, key: loop.gateway.key });
  const prefix = `${HARNESS_SOURCE}:`;
  const deleted = (file: string) => !file.startsWith(prefix) || !loop.ctx.oracle.knows(file.slice(prefix.length));
  return compareUsage(report, loop.ctx.ledger, loop.ctx.fileByUrl.values(), deleted);
}

function probesByChange(probes: readonly PlannedQuestion[], changes: ScenarioChanges): RevocationReport['probesByChange'] {
  const count = (f: (p: PlannedQuestion) => boolean) => probes.filter(f).length;
  return {
    deletedTasks: count((p) => changes.deletedTasks.includes(p.task)),
    movedTasks: count((p) => changes.movedTasks.some((m) => m.task === p.task)),
    removedMember: count((p) => p.asker.user === changes.removedMember.user),
    deactivatedGuest: count((p) => p.asker.user === changes.deactivatedGuest),
  };
}

/** The first half: the organization code-named, synced, ingested, and every member asking. */
async function initialLoop(
  o: AssistantScenarioOptions,
  work: string,
  cleanups: Array<() => Promise<void>>,
): Promise<{ loop: Loop; members: Asker[]; before: Map<string, string[]>; codes: Map<string, string>; round: RoundSummary }> {
  const mock = await startHarnessMock(o);
  if (mock.close) cleanups.push(mock.close);
  const before = (await oracleNow(mock)).tasks;
  const codes = await plantCodeNames(mock.client, [...before.keys()], o.seed);
  o.print(`code names: ${codes.size} tasks given one in their notes`);
  const front = breakAccess(o.breakAccess);
  if (front) o.print(`access broken on purpose (${o.breakAccess}): the scenario must report leaks and fail`);
  const gateway = await startHarnessGateway(mock, {
    work,
    logger: o.logger,
    ...(o.databaseUrl ? { databaseUrl: o.databaseUrl } : {}),
    ...(front ? { front } : {}),
  });
  cleanups.push(gateway.close);
  o.print(`staging: ${gateway.stagingLabel}`);
  const running = await startSimulatorPlatform({ gateway: { url: gateway.url, key: gateway.key }, logger: o.logger, ...(o.hostile ? { hostile: true } : {}) });
  cleanups.push(running.close);
  o.print(`platform simulator: ${running.url}`);
  const ctx: AskContext = {
    platform: running.platform,
    fileByUrl: new Map(),
    oracle: (await oracleNow(mock)).view,
    source: HARNESS_SOURCE,
    ledger: new UsageLedger(),
    feedbackEvery: o.feedbackEvery ?? 3,
    citing: { count: 0 },
  };
  const loop: Loop = { mock, gateway, platform: running.platform, ctx, judged: [] };
  const { sync, ingest } = await syncAndIngest(loop, 'full', o.reconcile ?? true);
  o.print(`[initial] sync: ${syncLine(sync)}; ingest: ${ingest.status}, ${ingest.files} files`);
  if (sync.status !== 'succeeded' || ingest.status !== 'succeeded')
    throw new Error(`the initial sync (${sync.status}) or ingest (${ingest.status}${ingest.error ? `: ${ingest.error}` : ''}) failed`);
  const members = (await workspaceMembers(mock.client, mock.workspace)).map((m) => ({ user: m.user, email: m.email }));
  const { summary } = await ask(loop, 'initial', planQuestions(members, before, codes, o.questionsPerUser, o.seed), o.print);
  return { loop, members, before, codes, round: summary };
}

/**
 * The closed-loop scenario: the work-management organization synced into the gateway, ingested
 * by the platform simulator over HTTP, and every member of the organization asking the assistant
 * about code-named tasks they may and may not see; then a change round (tasks moved and deleted,
 * a member leaving a project, a guest deactivated), sync + ingest cycles until revoked access
 * stops appearing, and every member asking again. Citations are judged against the mock's
 * visibility oracle; feedback goes on some answers; the scenario's per-file record is checked
 * against the Data API's counts.
 */
export async function runAssistantScenario(o: AssistantScenarioOptions): Promise<AssistantScenarioResult> {
  const cleanups: Array<() => Promise<void>> = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-assistant-'));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  try {
    const { loop, members, before, codes, round } = await initialLoop(o, work, cleanups);
    const rounds = [round];
    const moved = await applyChangeRound(loop.mock.client, loop.mock.workspace, o.print);
    const changes: ScenarioChanges = {
      ...moved,
      deactivatedGuest: await deactivateGuest(loop.mock.client, loop.mock.workspace, before, o.print),
      addedMember: await addProjectMember(loop.mock.client, loop.mock.workspace, before, o.print),
    };
    const after = (await oracleNow(loop.mock)).tasks;
    const revoked = revokedPairs(before, after);
    const granted = revokedPairs(after, before);
    const askers = new Map(members.map((m) => [m.user, m]));
    const probes = revocationProbes(revoked, askers, codes, o.probeLimit ?? 300, o.seed);
    const grants = revocationProbes(granted, askers, codes, o.probeLimit ?? 300, `${o.seed}/granted`).map((p) => ({ ...p, visible: true }));
    o.print(
      `change round: ${revoked.length} (user, task) pairs revoked and ${granted.length} granted; asking about ${probes.length} and ${grants.length} of them after each sync + ingest`,
    );
    const cycles = await revocationLoop(loop, [...probes, ...grants], o, rounds);
    const stopped = cycles.find((c) => c.stillCited === 0);
    const revocation: RevocationReport = {
      revokedPairs: revoked.length,
      probes: probes.length,
      grantedPairs: granted.length,
      grantProbes: grants.length,
      probesByChange: probesByChange(probes, changes),
      cycles,
      cyclesToStop: stopped ? stopped.cycle : null,
    };
    rounds.push((await ask(loop, 'after changes', planQuestions(members, after, codes, o.questionsPerUser, `${o.seed}/after`), o.print)).summary);
    const dataApi = await checkDataApi(loop.platform, loop.judged, loop.ctx.ledger);
    const usage = await checkUsage(loop);
    const checks = scenarioChecks(rounds, revocation, dataApi, usage);
    const result: AssistantScenarioResult = {
      ok: checks.every((c) => c.ok),
      staging: loop.gateway.stagingLabel,
      organization: { tasks: before.size, members: members.length, codeNames: codes.size },
      rounds,
      changes,
      revocation,
      usage: loop.ctx.ledger.all(),
      dataApi,
      usageAgreement: usage,
      checks,
      reportPath: '',
    };
    result.reportPath = writeAssistantReport(result, o.out);
    printAssistantSummary(result, o.print);
    return result;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
