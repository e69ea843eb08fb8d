import pino from 'pino';
import type { AdapterContext, FileRecord, SyncEvent } from '../../../src/adapters/adapter';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping, type SqlMappingInput } from '../../../src/adapters/sql';
import { contentHtml } from '../../helpers/content-bytes';
import { createFixtureSchema, fixtureMapping, seedFixture } from '../../helpers/sql-fixture';
import { createSqlSource, sourceKinds, type SqlSource } from '../../helpers/sql-source';

const ctx: AdapterContext = { logger: pino({ level: 'silent' }), signal: new AbortController().signal, now: () => new Date() };

async function files(events: AsyncIterable<SyncEvent>): Promise<FileRecord[]> {
  const out: FileRecord[] = [];
  for await (const e of events) if (e.type === 'file') out.push(e.file);
  return out;
}

/**
 * Pages the SQL adapter loads lazily (documents listed without their content columns, read by id
 * when the engine asks) are the very bytes it renders from whole rows, on every source database;
 * their version follows the row and the template, and loads after the run's connection closed
 * still answer.
 */
describe.each(sourceKinds)('lazily loaded SQL pages (%s)', (kind) => {
  let source: SqlSource;
  beforeAll(async () => {
    source = await createSqlSource(kind);
    await createFixtureSchema(source.db);
    await seedFixture(source);
    await source.db('documents').where({ id: 7 }).update({ title: 'Q3 <plan> & "budget"', body: '<p>Ünïcode ✓ &amp; more</p>', tags: null });
  });
  afterAll(async () => source?.destroy());

  /** The fixture's mapping with a template that shows a column nothing else maps (tags: a content column too). */
  function mapping(lazy: boolean, html = '<h1>{{title}}</h1>{{{body}}}<p>{{tags}} · {{attributes.kind}} · {{author}} · {{updated_at}}</p>'): SqlMappingInput {
    const base = fixtureMapping(lazy ? 'modified' : 'none');
    const { tags: _tags, ...attributes } = base.documents.attributes ?? {};
    const { modified, ...documents } = base.documents;
    return { ...base, documents: { ...documents, ...(lazy ? { modified } : {}), attributes, html } };
  }
  const read = (m: SqlMappingInput) =>
    files(createSqlAdapter({ connection: parseDatabaseUrl(source.url), mapping: resolveSqlMapping(m), sourceName: 'sql', pageSize: 5 }).full(ctx));

  it('renders the same bytes as from whole rows, loaded after the run has closed its connection', async () => {
    const lazy = await read(mapping(true));
    const eager = await read(mapping(false));
    expect(lazy.map((f) => f.nativeId)).toEqual(eager.map((f) => f.nativeId));
    expect(lazy.every((f) => 'load' in f.content && typeof f.content.version === 'string')).toBe(true);
    expect(eager.every((f) => 'html' in f.content)).toBe(true);
    const pages = await Promise.all(lazy.map(contentHtml));
    expect(pages).toEqual(await Promise.all(eager.map(contentHtml)));
    expect(pages[6]).toContain('<h1>Q3 &lt;plan&gt; &amp; &quot;budget&quot;</h1><p>Ünïcode ✓ &amp; more</p><p> · report · ');
    expect(pages[0]).toContain('<p>gamma · report · person2@example.com · ');
    // The record's own fields are the eager ones too.
    expect(lazy.map(({ content: _c, ...rest }) => rest)).toEqual(eager.map(({ content: _c, ...rest }) => rest));
  });

  it('versions a page by its row and the template: the same when nothing changed, another for a changed row or template', async () => {
    const version = (f: FileRecord | undefined) => (f && 'load' in f.content ? f.content.version : undefined);
    const before = await read(mapping(true));
    const again = await read(mapping(true));
    expect(again.map(version)).toEqual(before.map(version));
    const retemplated = await read(mapping(true, '<h2>{{title}}</h2>{{{body}}}'));
    expect(retemplated.map(version).filter((v, i) => v === version(before[i]))).toEqual([]);
    await source
      .db('documents')
      .where({ id: 3 })
      .update({ updated_at: source.ts(Date.parse('2026-06-01T00:00:00Z')) });
    const touched = await read(mapping(true));
    expect(touched.filter((f, i) => version(f) !== version(before[i])).map((f) => f.nativeId)).toEqual(['3']);
  });

  it('fails a page whose row left the table after it was listed, naming the document', async () => {
    const [first] = await read(mapping(true));
    await source.db('documents').where({ id: 1 }).delete();
    await expect(contentHtml(first as FileRecord)).rejects.toThrow(/^document 1: no longer in the source/);
  });
});
