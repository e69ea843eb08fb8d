import fs from 'node:fs';
import path from 'node:path';
import type { RoundSummary } from './ask-round';
import type { DataApiAgreement } from './data-api-agreement';
import type { AssistantScenarioResult, Check, RevocationReport } from './assistant-scenario-result';
import type { UsageAgreement } from './usage-agreement';

const sum = (rounds: readonly RoundSummary[], f: (r: RoundSummary) => number): number => rounds.reduce((n, r) => n + f(r), 0);

/** What must hold for the scenario to pass. */
export function scenarioChecks(rounds: readonly RoundSummary[], revocation: RevocationReport, dataApi: DataApiAgreement, usage: UsageAgreement): Check[] {
  const leaked = sum(rounds, (r) => r.leaked.length);
  const missed = sum(rounds, (r) => r.missed.length);
  const unresolved = sum(rounds, (r) => r.unresolved.length);
  const failedCycles = revocation.cycles.filter((c) => c.sync.status !== 'succeeded' || c.sync.failed > 0 || c.ingest.status !== 'succeeded');
  const counted = dataApi.counts.filter((c) => c.expected !== c.counted);
  return [
    {
      name: 'no leaked citation (a file the oracle says the asker may not see)',
      ok: leaked === 0,
      detail: rounds.map((r) => `${r.label}: ${r.leaked.length}`).join(', '),
    },
    {
      name: "no conversation read or rated by anyone but its asker (each answer's conversation tried by another asker)",
      ok: sum(rounds, (r) => r.foreignReads.leaks.length) === 0 && sum(rounds, (r) => r.foreignReads.tried) > 0,
      detail: rounds
        .map(
          (r) =>
            `${r.label}: ${r.foreignReads.leaks.length} of ${r.foreignReads.tried} not refused (${r.foreignReads.leaks.reduce((n, l) => n + l.files.length, 0)} citations shown that the reader may not see)`,
        )
        .join(', '),
    },
    {
      name: 'no missed citation (a visible task, the only file with its code name, not cited)',
      ok: missed === 0,
      detail: rounds.map((r) => `${r.label}: ${r.missed.length}`).join(', '),
    },
    {
      name: 'the questions tested both sides',
      ok: sum(rounds, (r) => r.aboutVisible) > 0 && sum(rounds, (r) => r.aboutHidden) > 0 && sum(rounds, (r) => r.citations) > 0 && revocation.probes > 0,
      detail: `${sum(rounds, (r) => r.aboutVisible)} about visible tasks, ${sum(rounds, (r) => r.aboutHidden)} about hidden ones, ${sum(rounds, (r) => r.citations)} citations, ${revocation.probes} revocation probes`,
    },
    { name: 'every citation names a gateway file', ok: unresolved === 0, detail: `${unresolved} unresolved` },
    {
      name: 'revoked access stopped at the first ingest after the sync',
      ok: revocation.cyclesToStop === 1,
      detail:
        revocation.cyclesToStop === null
          ? `still cited after ${revocation.cycles.length} sync + ingest cycles`
          : `${revocation.cyclesToStop} sync + ingest cycle(s)`,
    },
    {
      name: 'granted access appeared at the first ingest after the sync',
      ok: revocation.grantProbes > 0 && revocation.cycles[0]?.grantsMissed === 0,
      detail: `${revocation.grantProbes} granted (user, task) pairs asked about; not cited after cycle 1: ${revocation.cycles[0]?.grantsMissed ?? 'no cycle'}`,
    },
    {
      name: 'every sync and ingest after the changes succeeded',
      ok: failedCycles.length === 0,
      detail: revocation.cycles.map((c) => `cycle ${c.cycle}: sync ${c.sync.status} (${c.sync.failed} failed), ingest ${c.ingest.status}`).join('; '),
    },
    {
      name: "the Data API's records and counts agree with the scenario",
      ok: dataApi.ok,
      detail: `${dataApi.records} records, ${dataApi.counts.length} counts compared; ${dataApi.disagreements.length} answers disagree, ${counted.length} counts differ${counted[0] ? ` (e.g. ${counted[0].what}: recorded ${counted[0].expected}, counted ${counted[0].counted})` : ''}`,
    },
    {
      name: '`usage` matches the scenario, file by file',
      ok: usage.ok,
      detail:
        `${usage.files} files compared, ${usage.differences.length} differences${usage.differences[0] ? ` (e.g. ${usage.differences[0].file} ${usage.differences[0].field}: recorded ${usage.differences[0].recorded}, usage ${usage.differences[0].reported})` : ''}; ` +
        `stale citations ${usage.staleCitations.reported.length} (expected ${usage.staleCitations.expected.length}), never surfaced ${usage.neverSurfaced.reported.length} (expected ${usage.neverSurfaced.expected.length})`,
    },
  ];
}

/** Writes `assistant-report.json` into `out` and returns its path. */
export function writeAssistantReport(result: AssistantScenarioResult, out: string): string {
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, 'assistant-report.json');
  fs.writeFileSync(file, `${JSON.stringify({ ...result, reportPath: undefined }, null, 2)}\n`);
  return file;
}

export function printAssistantSummary(result: AssistantScenarioResult, print: (line: string) => void): void {
  const t = result.usage.reduce(
    (acc, u) => ({ surfaced: acc.surfaced + u.surfaced, cited: acc.cited + u.cited, helpful: acc.helpful + u.helpful, unhelpful: acc.unhelpful + u.unhelpful }),
    { surfaced: 0, cited: 0, helpful: 0, unhelpful: 0 },
  );
  print(
    `usage: ${result.usage.length} files surfaced ${t.surfaced} times, cited ${t.cited}; feedback ${t.helpful} helpful, ${t.unhelpful} unhelpful (per file: ${result.reportPath})`,
  );
  const r = result.revocation;
  const k = r.probesByChange;
  print(
    `revocation: ${r.revokedPairs} (user, task) pairs revoked, ${r.probes} asked about (deleted tasks ${k.deletedTasks}, moved tasks ${k.movedTasks}, the member who left ${k.removedMember}, the deactivated guest ${k.deactivatedGuest}), ${r.grantedPairs} granted, ${r.grantProbes} asked about; ${r.cyclesToStop === null ? `still cited after ${r.cycles.length} cycles` : `gone after ${r.cyclesToStop} sync + ingest cycle(s)`}`,
  );
  for (const round of result.rounds) {
    for (const l of round.leaked.slice(0, 5)) print(`  leaked [${round.label}]: ${l.email} was shown ${l.file} (asked "${l.question}")`);
    for (const l of round.foreignReads.leaks.slice(0, 5))
      print(
        `  read by another [${round.label}]: ${l.reader} read ${l.owner}'s conversation ${l.conversationId}${l.rated ? ' and rated it' : ''}${l.files.length ? `, shown ${l.files.join(', ')}` : ''}`,
      );
    for (const m of round.missed.slice(0, 5))
      print(`  missed [${round.label}]: ${m.email} may see task ${m.task} but it was not cited (asked "${m.question}")`);
  }
  for (const d of result.dataApi.disagreements.slice(0, 5)) print(`  data API: ${d}`);
  for (const c of result.checks) print(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name} (${c.detail})`);
  const leaked = result.rounds.reduce((n, x) => n + x.leaked.length, 0);
  const missed = result.rounds.reduce((n, x) => n + x.missed.length, 0);
  print(
    `assistant scenario ${result.ok ? 'passed' : 'FAILED'} on ${result.staging}: ${leaked} leaked, ${missed} missed citations; report ${result.reportPath}`,
  );
}
