import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadNote } from './load-note';
import { processMemory } from './process-memory';
import { measurement, type BenchmarkResult, type Measurement } from './report';
import type { SyncMemoryJob, SyncMemoryOutcome } from './sync-memory-child';
import { cacheDir, memorySqlSource, memoryTree } from './sync-memory-sources';

export interface SyncMemoryOptions {
  /** The smaller tree (the baseline of the growth ratio). */
  small: number;
  /** The larger tree. `SYNC_MEMORY_FILES=small,large` (e.g. `20000,100000`) sets both for a quicker run. */
  large: number;
  sampleMs: number;
}

const DEFAULTS: SyncMemoryOptions = { small: 100_000, large: 1_000_000, sampleMs: 20 };
/** The own memory of a full sync of the larger tree is at most this many times that of the smaller one. */
const GROWTH_GOAL = 1.2;
const MiB = 1024 * 1024;

/** The sizes to measure: the options, else SYNC_MEMORY_FILES, else the defaults. */
export function syncMemorySizes(env: NodeJS.ProcessEnv = process.env): Pick<SyncMemoryOptions, 'small' | 'large'> {
  const [small, large] = (env.SYNC_MEMORY_FILES ?? '').split(',').map((n) => Number(n.trim()));
  return small && large && small < large ? { small, large } : { small: DEFAULTS.small, large: DEFAULTS.large };
}

interface Sampled {
  outcome: SyncMemoryOutcome;
  /** Highest RssAnon sampled, bytes. */
  peakAnon: number;
  /** The median RssAnon sampled (what the run holds most of the time, garbage-collection spikes aside), bytes. */
  medianAnon: number;
}

/** Runs one job in a child process (started like this one: tsx's loader included), sampling its RssAnon every `sampleMs`. */
async function sampledChild(job: SyncMemoryJob, sampleMs: number): Promise<Sampled> {
  const child = fork(path.join(__dirname, 'sync-memory-child.ts'), [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let peakAnon = 0;
  const samples: number[] = [];
  const sample = () => {
    const m = child.pid === undefined ? undefined : processMemory(child.pid);
    if (!m) return;
    samples.push(m.anon);
    if (m.anon > peakAnon) peakAnon = m.anon;
  };
  const sampler = setInterval(sample, sampleMs);
  try {
    const outcome = await new Promise<SyncMemoryOutcome>((resolve, reject) => {
      child.on('message', (m: { type?: string; result?: SyncMemoryOutcome }) => {
        sample();
        if (m.type === 'done' && m.result) resolve(m.result);
      });
      child.once('exit', (code) => reject(new Error(`the sync child exited (${code}) before reporting`)));
    });
    samples.sort((a, b) => a - b);
    return { outcome, peakAnon, medianAnon: samples[Math.floor(samples.length / 2)] ?? 0 };
  } finally {
    clearInterval(sampler);
    await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  }
}

async function syncOnce(adapter: 'filesystem' | 'sql', source: string, files: number, o: SyncMemoryOptions): Promise<Sampled> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-sync-memory-run-'));
  try {
    const run = await sampledChild({ adapter, source, work }, o.sampleMs);
    if (run.outcome.status !== 'succeeded' || run.outcome.files !== files)
      throw new Error(`the ${adapter} sync of ${files} did not stage everything: ${JSON.stringify(run.outcome)}`);
    return run;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function figures(adapter: string, small: Sampled, large: Sampled, bare: number, o: SyncMemoryOptions): Measurement[] {
  const own = (s: Sampled) => Math.max(s.peakAnon - bare, 1) / MiB;
  const rate = (s: Sampled, n: number) => n / (s.outcome.ms / 1000);
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    measurement({
      benchmark: 'sync-memory',
      metric: `${adapter}: full sync's own peak memory (RssAnon minus a bare process's), ${n(o.large)} files (baseline: ${n(o.small)})`,
      unit: 'MiB',
      value: own(large),
      baseline: own(small),
      goal: { on: 'ratio', op: '<=', target: GROWTH_GOAL },
    }),
    measurement({
      benchmark: 'sync-memory',
      metric: `${adapter}: files/s of the full sync, ${n(o.large)} files (baseline: ${n(o.small)})`,
      unit: 'files/s',
      value: rate(large, o.large),
      baseline: rate(small, o.small),
      goal: { on: 'ratio', op: '>=', target: 0.8 },
    }),
  ];
}

/**
 * How a full sync's own memory grows with the source: the filesystem adapter over generated trees
 * and the SQL adapter over generated SQLite sources of 100,000 and 1,000,000 items, each sync in a
 * fresh child process (fresh SQLite staging, blobs in a folder) whose RssAnon the parent samples
 * every 20 ms; a bare child (same loader and modules, a database opened, no sync) is subtracted.
 * Goals: the larger run's own peak at most 1.2 times the smaller's, at no less than 0.8 times its
 * speed per file. The sources are generated once and cached under the OS temp folder.
 */
export async function syncMemory(options: Partial<SyncMemoryOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...syncMemorySizes(), ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const notes: string[] = [];
  const bareWork = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-sync-memory-run-'));
  const bare = await sampledChild({ adapter: 'bare', source: '', work: bareWork }, o.sampleMs).finally(() =>
    fs.rmSync(bareWork, { recursive: true, force: true }),
  );
  const measurements: Measurement[] = [];
  for (const adapter of ['filesystem', 'sql'] as const) {
    const runs: Sampled[] = [];
    for (const files of [o.small, o.large]) {
      const source = adapter === 'filesystem' ? await memoryTree(files) : await memorySqlSource(files);
      if (source.generatedMs > 0)
        notes.push(`${adapter} source of ${files} generated in ${(source.generatedMs / 1000).toFixed(0)} s (cached in ${cacheDir()})`);
      const run = await syncOnce(adapter, source.path, files, o);
      runs.push(run);
      notes.push(
        `${adapter}, ${files} files: ${(run.outcome.ms / 1000).toFixed(1)} s, peak RssAnon ${(run.peakAnon / MiB).toFixed(0)} MiB (median of the run's samples ${(run.medianAnon / MiB).toFixed(0)} MiB), checkpoint ${run.outcome.checkpointBytes} bytes`,
      );
    }
    const [small, large] = runs as [Sampled, Sampled];
    measurements.push(...figures(adapter, small, large, bare.peakAnon, o));
  }
  notes.push(`bare child (tsx, modules loaded, staging opened): RssAnon ${(bare.peakAnon / MiB).toFixed(0)} MiB`, loadNote(load0));
  return { name: 'sync-memory', durationMs: performance.now() - started, measurements, notes };
}
