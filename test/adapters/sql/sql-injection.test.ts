import pino from 'pino';
import type { AdapterContext, SettleEvent, SyncEvent } from '../../../src/adapters/adapter';
import { parseDatabaseUrl, resolveSqlMapping, SqlAdapter, type SqlCheckpoint } from '../../../src/adapters/sql';
import { createSqlSource, sourceKinds, type SqlSource } from '../../helpers/sql-source';

/**
 * Values never become SQL: ids full of quotes, comment markers, `?` and backslashes travel as
 * bound parameters everywhere the adapter puts a value into a query — keyset positions (a
 * hostile id as the tie-break), id lists of settle and of change rows, access lookups.
 */
const logger = pino({ level: 'silent' });
const ctx: AdapterContext = { logger, signal: new AbortController().signal, now: () => new Date() };
const HOSTILE = ["a'); drop table pages; --", 'b" or "1"="1', "c' or '1'='1", 'd?', 'e\\', 'f;--', 'g $1 :name', 'h ünïcødé'];

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe.each(sourceKinds)('hostile values on %s', (kind) => {
  let source: SqlSource;
  let adapter: SqlAdapter;
  const at = (s: number) => source.ts(Date.parse('2026-05-01T00:00:00Z') + s * 1000);

  beforeAll(async () => {
    source = await createSqlSource(kind);
    await source.db.schema.createTable('pages', (t) => {
      t.string('id', 100).primary();
      t.string('title', 200);
      t.datetime('changed', { precision: 6 });
    });
    await source.db.schema.createTable('page_access', (t) => {
      t.string('page', 100);
      t.string('who', 100);
    });
    await source.db('pages').insert(HOSTILE.map((id) => ({ id, title: `Page ${id}`, changed: at(0) })));
    await source.db('page_access').insert(HOSTILE.map((id) => ({ page: id, who: 'everyone' })));
    adapter = new SqlAdapter({
      connection: parseDatabaseUrl(source.url),
      mapping: resolveSqlMapping({
        documents: {
          table: 'pages',
          id: 'id',
          title: 'title',
          html: '<h1>{{title}}</h1>',
          urlTemplate: 'https://wiki.example.com/{{id}}',
          modified: 'changed',
          access: { table: 'page_access', document: 'page', principal: 'who', type: 'who' },
        },
        incremental: { mode: 'modified', overlap: 0 },
      }),
      sourceName: 'wiki',
      pageSize: 3,
    });
  });
  afterAll(() => source?.destroy());

  const files = (events: ReadonlyArray<SyncEvent | SettleEvent>) => events.flatMap((e) => (e.type === 'file' ? [e.file.nativeId] : [])).sort();

  it('reads every page, keyset pages included (hostile ids as the tie-break), with its access', async () => {
    const events = await collect(adapter.full(ctx));
    expect(files(events)).toEqual([...HOSTILE].sort());
    expect(events.filter((e) => e.type === 'file').every((e) => e.type === 'file' && e.file.access.length === 1 && e.file.access[0]?.type === 'EVERYONE')).toBe(
      true,
    );
    const checkpoint = events.filter((e): e is Extract<SyncEvent, { type: 'checkpoint' }> => e.type === 'checkpoint').pop()?.checkpoint as SqlCheckpoint;
    // Equal timestamps everywhere: the incremental run starts at (timestamp, a hostile id).
    const since: SqlCheckpoint = { ...checkpoint, position: { value: checkpoint.position?.value ?? '', id: HOSTILE[0] as string } };
    const again = await collect(adapter.changes(ctx, since));
    // A timestamp restarts inclusive at its value: every page again, none twice, none failed.
    expect(again.filter((e) => e.type === 'failure')).toEqual([]);
    expect(files(again)).toEqual([...HOSTILE].sort());
    expect((await source.db('pages').select('id')).map((r: { id: string }) => r.id).sort()).toEqual([...HOSTILE].sort());
  });

  it('settles hostile ids by binding them: present ones read, absent ones deleted, nothing dropped', async () => {
    const absent = ["x' or 1=1 --", 'y"); delete from pages; --'];
    const events = await collect(adapter.settle(ctx, { unlisted: [...HOSTILE.slice(0, 3), ...absent], missing: HOSTILE.slice(3), accessChanged: [] }));
    expect(files(events)).toEqual([...HOSTILE].sort());
    expect(events.flatMap((e) => (e.type === 'delete' ? [e.nativeId] : [])).sort()).toEqual([...absent].sort());
    const remaining = (await source.db('pages').select('id')).map((r: { id: string }) => r.id).sort();
    expect(remaining).toEqual([...HOSTILE].sort());
  });
});
