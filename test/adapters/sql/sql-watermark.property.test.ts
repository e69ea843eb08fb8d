import fc from 'fast-check';
import type { Knex } from 'knex';
import pino from 'pino';
import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { parseDatabaseUrl, resolveSqlMapping, SqlAdapter, type SqlCheckpoint } from '../../../src/adapters/sql';
import { createSqlSource, sourceKinds, type SourceKind, type SqlSource } from '../../helpers/sql-source';

/**
 * Properties of incremental runs by a modified column, driven through the real adapter against a
 * real database (SQLite always; Postgres and MariaDB when their URLs are set) while other writers change the table between (and during) runs:
 *
 * - timestamps of whole seconds (so many rows tie), written by transactions that commit up to
 *   `lag` seconds after they took their timestamp, with `overlap` ≥ `lag`: within a run no row
 *   version is yielded twice (a row updated during the run may be read again, newer), and after a last run every row's latest version has been yielded, in
 *   order, last (nothing lost, however rows tie across page boundaries);
 * - a strictly increasing version column (a sequence, overlap 0): every row version is yielded
 *   exactly once across all runs.
 *
 * Writes land after random events of a run, so they race the keyset reads.
 */
const logger = pino({ level: 'silent' });
const ctx: AdapterContext = { logger, signal: new AbortController().signal, now: () => new Date() };
const START_S = Date.parse('2026-05-01T00:00:00Z') / 1000;

type Write = { kind: 'insert'; delay: number } | { kind: 'update'; row: number; delay: number } | { kind: 'tick'; seconds: number };
type Step = { kind: 'write'; write: Write } | { kind: 'run'; during: Array<{ afterEvent: number; write: Write }> };

const write = (lag: number): fc.Arbitrary<Write> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('insert' as const), delay: fc.integer({ min: 0, max: lag }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), row: fc.nat(1000), delay: fc.integer({ min: 0, max: lag }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), seconds: fc.integer({ min: 0, max: 3 }) }) },
  );
const steps = (lag: number): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('write' as const), write: write(lag) }),
      fc.record({ kind: fc.constant('run' as const), during: fc.array(fc.record({ afterEvent: fc.nat(12), write: write(lag) }), { maxLength: 6 }) }),
    ),
    { minLength: 1, maxLength: 25 },
  );

/** The table, its writers, and what it holds (the oracle). */
class Table {
  clock = START_S;
  seq = 0;
  versions = new Map<number, number>();
  constructor(
    readonly db: Knex,
    readonly column: 'timestamp' | 'sequence',
    private readonly ts: SqlSource['ts'],
  ) {}

  private stamp(delay: number): Date | string | number {
    if (this.column === 'sequence') return ++this.seq;
    return this.ts((this.clock - delay) * 1000);
  }

  async apply(w: Write): Promise<void> {
    if (w.kind === 'tick') {
      this.clock += w.seconds;
      return;
    }
    if (w.kind === 'insert') {
      const id = this.versions.size + 1;
      this.versions.set(id, 1);
      await this.db('docs').insert({ id, title: `Doc ${id}`, v: 1, m: this.stamp(w.delay) });
      return;
    }
    if (this.versions.size === 0) return;
    const id = (w.row % this.versions.size) + 1;
    const v = (this.versions.get(id) ?? 0) + 1;
    this.versions.set(id, v);
    await this.db('docs')
      .where({ id })
      .update({ v, m: this.stamp(w.delay) });
  }
}

async function runOnce(adapter: SqlAdapter, table: Table, since: SqlCheckpoint | undefined, during: Array<{ afterEvent: number; write: Write }>) {
  const pending = [...during].sort((a, b) => a.afterEvent - b.afterEvent);
  const yielded: Array<[number, number]> = [];
  let checkpoint: SqlCheckpoint | undefined;
  let n = 0;
  const events: AsyncIterable<SyncEvent> = since ? adapter.changes(ctx, since) : adapter.full(ctx);
  for await (const event of events) {
    if (event.type === 'file') yielded.push([Number(event.file.nativeId), Number(event.file.attributes?.v)]);
    if (event.type === 'checkpoint') checkpoint = event.checkpoint as SqlCheckpoint;
    if (event.type === 'failure') throw event.error;
    n++;
    while (pending[0] && pending[0].afterEvent <= n) await table.apply((pending.shift() as { write: Write }).write);
  }
  for (const p of pending) await table.apply(p.write);
  return { yielded, checkpoint: checkpoint as SqlCheckpoint };
}

async function withTable(
  kind: SourceKind,
  column: 'timestamp' | 'sequence',
  overlap: number | undefined,
  pageSize: number,
  body: (adapter: SqlAdapter, table: Table) => Promise<void>,
): Promise<void> {
  const source = await createSqlSource(kind);
  try {
    await source.db.schema.createTable('docs', (t) => {
      t.integer('id').primary();
      t.string('title');
      t.integer('v');
      if (column === 'sequence') t.integer('m');
      else t.datetime('m', { precision: 6 });
    });
    const mapping = resolveSqlMapping({
      documents: {
        table: 'docs',
        id: 'id',
        title: 'title',
        html: '<p>{{title}} v{{v}}</p>',
        urlTemplate: 'https://x.example.com/{{id}}',
        modified: 'm',
        attributes: { v: { column: 'v', type: 'number' } },
      },
      incremental: { mode: 'modified', ...(overlap === undefined ? {} : { overlap }) },
    });
    const adapter = new SqlAdapter({ connection: parseDatabaseUrl(source.url), mapping, sourceName: 'sql', pageSize });
    await body(adapter, new Table(source.db, column, source.ts));
  } finally {
    await source.destroy();
  }
}

function duplicates(pairs: ReadonlyArray<readonly [number, number]>, key: (p: readonly [number, number]) => string): string[] {
  const seen = new Set<string>();
  return pairs.map(key).filter((k) => (seen.has(k) ? true : (seen.add(k), false)));
}

describe.each(sourceKinds)('incremental runs by a modified column (fast-check, real %s, concurrent writers)', (kind) => {
  /** Every case makes a database of its own: fewer of them where that costs a server round trip. */
  const runs = (sqlite: number) => (kind === 'sqlite' ? sqlite : Math.ceil(sqlite / 3));
  jest.setTimeout(120_000);

  it('timestamps with ties and late commits: no row version twice in a run, every row ends at its latest version', async () => {
    const cases = fc
      .integer({ min: 0, max: 5 })
      .chain((lag) => fc.record({ lag: fc.constant(lag), extra: fc.integer({ min: 0, max: 3 }), pageSize: fc.integer({ min: 1, max: 4 }), plan: steps(lag) }));
    await fc.assert(
      fc.asyncProperty(cases, async ({ lag, extra, pageSize, plan }) => {
        await withTable(kind, 'timestamp', lag + extra, pageSize, async (adapter, table) => {
          const last = new Map<number, number>();
          let { checkpoint } = await runOnce(adapter, table, undefined, []);
          for (const step of [...plan, { kind: 'run' as const, during: [] }]) {
            if (step.kind === 'write') {
              await table.apply(step.write);
              continue;
            }
            const run = await runOnce(adapter, table, checkpoint, step.during);
            checkpoint = run.checkpoint;
            expect(duplicates(run.yielded, ([id, v]) => `${id}@${v}`)).toEqual([]);
            for (const [id, v] of run.yielded) last.set(id, v);
          }
          // The writes of the last run's `during` landed after it read: one more, quiet run.
          for (const [id, v] of (await runOnce(adapter, table, checkpoint, [])).yielded) last.set(id, v);
          expect(new Map([...last].sort(([a], [b]) => a - b))).toEqual(new Map([...table.versions].sort(([a], [b]) => a - b)));
        });
      }),
      { numRuns: runs(30) },
    );
  });

  it('a strictly increasing version column: every row version yielded exactly once across runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), steps(0), async (pageSize, plan) => {
        await withTable(kind, 'sequence', undefined, pageSize, async (adapter, table) => {
          const all: Array<[number, number]> = [];
          let { checkpoint } = await runOnce(adapter, table, undefined, []);
          for (const step of [...plan, { kind: 'run' as const, during: [] }, { kind: 'run' as const, during: [] }]) {
            if (step.kind === 'write') await table.apply(step.write);
            else {
              const run = await runOnce(adapter, table, checkpoint, step.during);
              checkpoint = run.checkpoint;
              all.push(...run.yielded);
            }
          }
          expect(duplicates(all, ([id, v]) => `${id}@${v}`)).toEqual([]);
          const last = new Map<number, number>();
          for (const [id, v] of all) last.set(id, v);
          expect(last).toEqual(table.versions);
        });
      }),
      { numRuns: runs(25) },
    );
  });
});
