import fs from 'node:fs';
import path from 'node:path';

/** A goal on one figure: `ratio` (gateway / baseline) or the gateway's own `value`. */
export interface Goal {
  on: 'ratio' | 'value';
  op: '>=' | '<=' | '<';
  target: number;
}

/** One line of the table: the gateway's figure, the same figure for the baseline, and the goal. */
export interface Measurement {
  benchmark: string;
  metric: string;
  unit: string;
  value: number;
  baseline: number;
  /** value / baseline (what the goal is usually about). */
  ratio: number;
  goal: Goal;
  pass: boolean;
}

export interface BenchmarkResult {
  name: string;
  durationMs: number;
  measurements: Measurement[];
  /** Anything a reader should know: error counts, query plans, settings used. */
  notes: string[];
  /** Set when the benchmark itself crashed (reported, never fatal to the run). */
  error?: string;
}

export function measurement(m: Omit<Measurement, 'ratio' | 'pass'>): Measurement {
  const ratio = m.baseline === 0 ? Number.POSITIVE_INFINITY : m.value / m.baseline;
  const subject = m.goal.on === 'ratio' ? ratio : m.value;
  const pass = m.goal.op === '>=' ? subject >= m.goal.target : m.goal.op === '<=' ? subject <= m.goal.target : subject < m.goal.target;
  return { ...m, ratio, pass };
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  return abs >= 100 ? n.toFixed(0) : abs >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/**
 * A figure the goal is on, with as many more decimals as it takes not to read as the target when
 * it is not (0.497 against `>= 0.5` would print as 0.50 beside MISS).
 */
function fmtAgainst(n: number, target: number): string {
  let text = fmt(n);
  for (let digits = 3; Number(text) === target && n !== target && digits <= 6; digits += 1) text = n.toFixed(digits);
  return text;
}

function goalText(g: Goal, unit: string): string {
  return g.on === 'ratio' ? `ratio ${g.op} ${g.target}` : `${g.op} ${g.target} ${unit}`;
}

export const TABLE_HEADER = ['benchmark', 'metric', 'gateway', 'baseline', 'unit', 'ratio', 'goal', 'result'];

/** One row of cells (as TABLE_HEADER names them) per figure; a crashed benchmark is one ERROR row. */
export function tableRows(results: readonly BenchmarkResult[]): string[][] {
  const rows: string[][] = [];
  for (const r of results) {
    if (r.error) rows.push([r.name, '(crashed)', '-', '-', '-', '-', '-', 'ERROR']);
    for (const m of r.measurements) {
      const value = m.goal.on === 'value' ? fmtAgainst(m.value, m.goal.target) : fmt(m.value);
      const ratio = m.goal.on === 'ratio' ? fmtAgainst(m.ratio, m.goal.target) : fmt(m.ratio);
      rows.push([m.benchmark, m.metric, value, fmt(m.baseline), m.unit, ratio, goalText(m.goal, m.unit), m.pass ? 'pass' : 'MISS']);
    }
  }
  return rows;
}

/** The results as a fixed-width text table, then each benchmark's notes. */
export function formatTable(results: readonly BenchmarkResult[]): string {
  const header = TABLE_HEADER;
  const rows = tableRows(results);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  for (const r of results) {
    out.push('', `${r.name} (${(r.durationMs / 1000).toFixed(1)} s)${r.error ? `: ERROR ${r.error}` : ''}`);
    for (const n of r.notes) out.push(`  - ${n}`);
  }
  return out.join('\n');
}

export function writeJson(file: string, results: readonly BenchmarkResult[], extra: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ ...extra, results }, null, 2)}\n`);
}
