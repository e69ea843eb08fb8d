import type { JudgedAnswer, UsageLedger } from './answer-judge';
import type { ScenarioPlatform } from './scenario-platform';

export interface CountCheck {
  what: string;
  filter?: string;
  /** What the scenario recorded. */
  expected: number;
  /** What the Data API's count endpoint answered. */
  counted: number;
}

export interface DataApiAgreement {
  records: number;
  /** Answers whose plugin-resource records disagree with their citations (and records of no answer). */
  disagreements: string[];
  counts: CountCheck[];
  ok: boolean;
}

const literal = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/**
 * Reads every plugin-resource record through the Data API and records, per answer, the files the
 * assistant surfaced; the records' `cited` flags must name exactly the files the answer cites.
 */
export async function recordSurfaced(
  platform: ScenarioPlatform,
  judged: readonly JudgedAnswer[],
  ledger: UsageLedger,
): Promise<{ records: number; disagreements: string[] }> {
  const rows = await platform.pluginResources();
  const byConversation = new Map<string, typeof rows>();
  for (const r of rows) byConversation.set(r.conversation_id, [...(byConversation.get(r.conversation_id) ?? []), r]);
  const disagreements: string[] = [];
  for (const j of judged) {
    const mine = byConversation.get(j.answer.conversationId) ?? [];
    byConversation.delete(j.answer.conversationId);
    ledger.surfaced(mine.map((r) => r.detail.external_resource_id));
    const cited = mine
      .filter((r) => r.cited)
      .map((r) => r.detail.external_resource_id)
      .sort();
    const want = [...j.cited].sort();
    if (cited.join('\n') !== want.join('\n'))
      disagreements.push(`conversation ${j.answer.conversationId}: the answer cites [${want.join(', ')}], the records mark [${cited.join(', ')}] cited`);
  }
  for (const [conversation, extra] of byConversation)
    disagreements.push(`conversation ${conversation}: ${extra.length} records, but the scenario never asked in it`);
  return { records: rows.length, disagreements };
}

/**
 * The scenario's counts against the Data API's count endpoint: all records, cited records, and
 * per file surfaced and cited.
 */
export async function compareCounts(platform: ScenarioPlatform, ledger: UsageLedger): Promise<CountCheck[]> {
  const totals = ledger.totals();
  const checks: CountCheck[] = [
    { what: 'records (files surfaced in answers)', expected: totals.surfaced, counted: await platform.count() },
    { what: 'cited records', filter: 'cited eq true', expected: totals.cited, counted: await platform.count('cited eq true') },
  ];
  for (const u of ledger.all()) {
    const file = `detail/external_resource_id eq ${literal(u.file)}`;
    checks.push({ what: `${u.file} surfaced`, filter: file, expected: u.surfaced, counted: await platform.count(file) });
    checks.push({
      what: `${u.file} cited`,
      filter: `${file} and cited eq true`,
      expected: u.cited,
      counted: await platform.count(`${file} and cited eq true`),
    });
  }
  return checks;
}

export async function checkDataApi(platform: ScenarioPlatform, judged: readonly JudgedAnswer[], ledger: UsageLedger): Promise<DataApiAgreement> {
  const { records, disagreements } = await recordSurfaced(platform, judged, ledger);
  const counts = await compareCounts(platform, ledger);
  return { records, disagreements, counts, ok: disagreements.length === 0 && counts.every((c) => c.expected === c.counted) };
}
