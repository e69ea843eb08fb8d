/**
 * `npm run bench:readme [-- <results.json>]`: writes the figures of a benchmark run (default
 * kit/bench/results/latest.json, as `npm run bench` leaves it) into kit/bench/README.md, between
 * its current-figures markers: every figure beside its in-run baseline, with the run's date, the
 * commit it measured and the machine. Benchmarks the run left out keep their previous rows.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TABLE_HEADER, tableRows, type BenchmarkResult } from '../bench/report';

const ROOT = path.join(__dirname, '../..');
const README = path.join(ROOT, 'kit/bench/README.md');
const START = '<!-- current-figures:start (written by `npm run bench:readme`) -->';
const END = '<!-- current-figures:end -->';

interface RunFile {
  finishedAt: string;
  /** Written by run-benchmarks.ts; older files lack it (then the checkout's commit is named). */
  commit?: string;
  node: string;
  cpus: number;
  results: BenchmarkResult[];
}

const checkoutCommit = (): string => {
  const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'kit/bench', 'migrations'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  return dirty ? `${sha} with uncommitted changes` : sha;
};

/** The rows already in the block, by benchmark name, with the line that says when they were measured. */
function previousRows(block: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of block.split('\n').filter((l) => l.startsWith('| `'))) {
    const name = /^\| `([^`]+)`/.exec(line)?.[1] ?? '';
    rows.set(name, [...(rows.get(name) ?? []), line]);
  }
  return rows;
}

function block(run: RunFile, previous: Map<string, string[]>, when: string): string {
  const measured = new Set(run.results.map((r) => r.name));
  const fresh = tableRows(run.results).map((cells) => `| \`${cells[0]}\` | ${cells.slice(1).join(' | ')} | ${when} |`);
  const kept = [...previous].filter(([name]) => !measured.has(name)).flatMap(([, lines]) => lines);
  return [
    `| ${TABLE_HEADER.join(' | ')} | measured |`,
    `|${TABLE_HEADER.map(() => '---').join('|')}|---|`,
    ...[...fresh, ...kept].sort((a, b) => a.localeCompare(b)),
  ].join('\n');
}

const file = process.argv[2] ?? path.join(ROOT, 'kit/bench/results/latest.json');
const run = JSON.parse(fs.readFileSync(file, 'utf8')) as RunFile;
const readme = fs.readFileSync(README, 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start < 0 || end < start) throw new Error(`kit/bench/README.md lacks the markers ${START} … ${END}`);
const when = `${run.finishedAt.slice(0, 10)}, ${run.commit ?? checkoutCommit()}, Node ${run.node}, ${run.cpus} CPUs`;
const text = block(run, previousRows(readme.slice(start, end)), when);
fs.writeFileSync(README, `${readme.slice(0, start + START.length)}\n${text}\n${readme.slice(end)}`);
process.stdout.write(`wrote ${run.results.length} benchmarks' figures into kit/bench/README.md\n`);
