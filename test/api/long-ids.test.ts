import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { AccessEntry, FileRecord } from '../../src/adapters/adapter';
import { runSync } from '../../src/sync/run-sync';
import { CLIENTS, sendReading, type Answer } from '../helpers/id-clients';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });

/**
 * Native ids a source can give, named by what they stress: a deep folder (about 3,000 bytes),
 * many bytes per character (2,900 bytes of CJK; emoji), just over and just under 1,024
 * characters, quotes and spaces, and short ones around them in sort order.
 */
const NATIVE: Readonly<Record<string, string>> = {
  first: 'a.html',
  deep: `${'a-deeply-named-folder/'.repeat(136)}plan.pdf`,
  cjk: `${'中'.repeat(966)}.txt`,
  over1024: `b/${'x'.repeat(1100)}`,
  under1024: `c/${'y'.repeat(1000)}`,
  emoji: `d/${'😀'.repeat(300)}`,
  quoted: `e/it's "quoted" & spaced ${'é'.repeat(200)}.html`,
  last: 'z.html',
};
const BINARY = new Set(['deep', 'cjk', 'over1024', 'emoji']);
const LONG_GROUP = `team/${'a-long-group-name-'.repeat(120)}`;

function fileRecord(name: string, access: AccessEntry[]): FileRecord {
  const nativeId = NATIVE[name] as string;
  const common = { nativeId, name, externalUrl: `https://src.example/${encodeURIComponent(name)}`, access };
  if (!BINARY.has(name)) return { ...common, mimeType: 'text/html', content: { kind: 'html', html: `<p>${name}</p>` } };
  return { ...common, mimeType: 'text/plain', content: { kind: 'binary', open: async () => Readable.from([Buffer.from(`bytes of ${name}`)]), version: 'v1' } };
}

/** Every page of a collection from `first`, each nextLink followed as given (200 every time). */
async function crawl<T>(gw: TestGateway, first: string, pick: (body: { value: unknown }) => T[]): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined = first;
  for (let pages = 0; next !== undefined; pages++) {
    if (pages > 100) throw new Error(`no end to the pages of ${first}`);
    const res = await gw.get(next.replace(gw.url, ''), AUTH);
    expect([next.slice(0, 200), res.status, res.body.error]).toEqual([next.slice(0, 200), 200, undefined]);
    items.push(...pick(res.body));
    next = res.body['@odata.nextLink'];
  }
  return items;
}

/** The same, through a raw client answer (for paths sent byte for byte). */
async function crawlAnswer(gw: TestGateway, first: () => Promise<Answer>, pick: (body: { value: unknown }) => Array<{ id: string }>): Promise<string[]> {
  const answer = await first();
  expect([answer.status, answer.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  const body = JSON.parse(answer.text) as { value: unknown; '@odata.nextLink'?: string };
  const rest = body['@odata.nextLink'] ? await crawl(gw, body['@odata.nextLink'], pick) : [];
  return [...pick(body), ...rest].map((i) => i.id);
}

const files = (body: { value: unknown }) => body.value as Array<{ id: string; name: string; content: { download_path?: string } }>;
const permissions = (body: { value: unknown }) => (body.value as { permissions: Array<{ id: string }> }).permissions;
const members = (body: { value: unknown }) => body.value as Array<{ id: string }>;

describe.each(databaseKinds)('ids of any length, synced and crawled through the gateway (%s)', (kind) => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    const source = new ScriptedSource('src')
      .putUser({ nativeId: 'ana', email: 'ana@example.com', active: true })
      .putUser({ nativeId: 'bo', email: 'bo@example.com', active: true })
      .putGroup({
        nativeId: LONG_GROUP,
        name: 'Long',
        members: [
          { type: 'USER', nativeId: 'ana' },
          { type: 'USER', nativeId: 'bo' },
        ],
      })
      .putGroup({
        nativeId: 'short',
        name: 'Short',
        members: [
          { type: 'GROUP', nativeId: LONG_GROUP },
          { type: 'USER', nativeId: 'bo' },
        ],
      });
    const access: AccessEntry[] = [
      { type: 'GROUP', nativeId: LONG_GROUP },
      { type: 'GROUP', nativeId: 'short' },
      { type: 'USER', nativeId: 'ana' },
    ];
    // Three runs a minute apart, so the files' last changes differ and both orders interleave them.
    let clock = Date.parse('2026-05-01T00:00:00Z');
    for (const names of [
      ['deep', 'first', 'emoji'],
      ['cjk', 'last', 'under1024'],
      ['over1024', 'quoted'],
    ]) {
      for (const name of names) source.putFile(fileRecord(name, access));
      clock += 60_000;
      const summary = await runSync(source, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode: 'full' });
      expect(summary).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    }
  });
  afterAll(() => gw.close());

  it.each(['', 'id', 'id desc', 'last_modified_datetime', 'last_modified_datetime desc'])(
    'lists every file, one per page and three per page, ordered by %j, every nextLink accepted',
    async (orderby) => {
      for (const top of [1, 3]) {
        const listed = await crawl(gw, `/v1/files?$top=${top}${orderby ? `&$orderby=${encodeURIComponent(orderby)}` : ''}`, files);
        expect([orderby, top, listed.map((f) => f.name).sort()]).toEqual([orderby, top, Object.keys(NATIVE).sort()]);
      }
    },
  );

  it('serves an id as <source>:<native id> up to 1,024 characters percent-encoded, and as <source>:~<SHA-256 of the native id> beyond', async () => {
    const listed = await crawl(gw, '/v1/files', files);
    const byName = new Map(listed.map((f) => [f.name, f.id]));
    for (const [name, nativeId] of Object.entries(NATIVE)) {
      const fits = encodeURIComponent(`src:${nativeId}`).length <= 1024;
      expect([name, byName.get(name)]).toEqual([name, fits ? `src:${nativeId}` : `src:~${crypto.hash('sha256', nativeId, 'hex')}`]);
    }
    expect([...byName.values()].filter((id) => id.startsWith('src:~')).length).toBe(5);
    const groups = (await crawl(gw, '/v1/groups', members)).map((g) => g.id).sort();
    expect(groups).toEqual([`src:~${crypto.hash('sha256', LONG_GROUP, 'hex')}`, 'src:short'].sort());
  });

  it('reads every listed file, its download and its access list, with the id encoded or pasted in raw', async () => {
    const listed = await crawl(gw, '/v1/files?$top=2', files);
    expect(listed).toHaveLength(Object.keys(NATIVE).length);
    for (const file of listed) {
      for (const client of CLIENTS) {
        const where = `${client} ${file.name}`;
        const got = await sendReading(gw.url, client, { operation: 'getFile', id: file.id });
        expect([where, got.status]).toEqual([where, 200]);
        expect([where, (JSON.parse(got.text) as { value: { id: string } }).value.id]).toEqual([where, file.id]);
        const access = await crawlAnswer(gw, () => sendReading(gw.url, client, { operation: 'listFilePermissions', id: file.id }, '?$top=1'), permissions);
        expect([where, access.length]).toEqual([where, 3]);
        if (BINARY.has(file.name)) {
          const bytes = await sendReading(gw.url, client, { operation: 'downloadFile', id: file.id });
          expect([where, bytes.status, bytes.text]).toEqual([where, 200, `bytes of ${file.name}`]);
          expect(file.content.download_path).toBe(`/${encodeURIComponent(file.id)}/download`);
        }
      }
    }
  });

  it("reads every listed group's members and every user, with ids encoded or raw, one per page", async () => {
    const groups = await crawl(gw, '/v1/groups?$top=1', members);
    expect(groups).toHaveLength(2);
    for (const group of groups) {
      for (const client of CLIENTS) {
        const ids = await crawlAnswer(gw, () => sendReading(gw.url, client, { operation: 'listGroupMembers', id: group.id }, '?$top=1'), members);
        expect([client, ids.length]).toEqual([client, 2]);
      }
    }
    expect(await crawl(gw, '/v1/users?$top=1', members)).toHaveLength(2);
  });

  it('follows the nextLink of a first page whose $filter and $select are as long as the contract allows', async () => {
    const clause = 'last_modified_datetime ge 2000-01-01T00:00Z and ';
    const filter = `${clause.repeat(Math.floor((2048 - 18) / clause.length))}status eq 'active'`;
    const select = `${'name,'.repeat(204)}name`;
    expect([filter.length <= 2048, select.length]).toEqual([true, 1024]);
    for (const orderby of ['id', 'last_modified_datetime desc']) {
      const query = `$top=1&$orderby=${encodeURIComponent(orderby)}&$filter=${encodeURIComponent(filter)}&$select=${encodeURIComponent(select)}`;
      const listed = await crawl(gw, `/v1/files?${query}`, files);
      expect(listed.map((f) => f.name).sort()).toEqual(Object.keys(NATIVE).sort());
    }
  });
});
