import { EVERYONE, type AdapterContext, type SyncEvent } from '../../../src/adapters/adapter';
import { exampleWikiAdapterFactory } from '../../../src/adapters/example-wiki';
import { toAccess, toFileRecord } from '../../../src/adapters/example-wiki/example-wiki-mapping';
import { SourceAuthError } from '../../../src/adapters/source-error';
import { captureLogger } from '../../helpers/capture-logger';
import { exampleWikiData, startFakeWiki, type FakeWiki } from '../../helpers/fake-wiki';

const pages = exampleWikiData().pages;
const page = (id: string) => pages.find((p) => p.id === id)!;

describe('example-wiki mapping (pure)', () => {
  it('maps a public page to EVERYONE alone, and a restricted one to its reader users and groups (none: nobody)', () => {
    expect(toAccess(page('p-welcome'))).toEqual([EVERYONE]);
    expect(toAccess(page('p-deploy'))).toEqual([
      { type: 'USER', nativeId: 'u3' },
      { type: 'GROUP', nativeId: 'g-eng' },
    ]);
    expect(toAccess(page('p-draft'))).toEqual([]);
  });

  it('maps a page to an HTML file under its space, with the same record for the same page', () => {
    expect(toFileRecord(page('p-oncall'))).toEqual({
      nativeId: 'p-oncall',
      name: 'On-call rota',
      externalUrl: 'https://wiki.example.com/spaces/eng/pages/p-oncall',
      mimeType: 'text/html',
      content: { kind: 'html', html: '<p>Week 1: Ana.</p>' },
      access: [{ type: 'GROUP', nativeId: 'g-eng' }],
      createdAt: '2026-01-12T09:30:00.000Z',
      createdBy: 'ana@example.com',
      parent: { nativeId: 'eng', name: 'Engineering' },
    });
    expect(toFileRecord(page('p-oncall'))).toEqual(toFileRecord({ ...page('p-oncall') }));
  });
});

describe('example-wiki adapter against the fake wiki', () => {
  let wiki: FakeWiki;
  beforeEach(async () => {
    wiki = await startFakeWiki({ maxPageSize: 2 });
  });
  afterEach(() => wiki.close());

  async function run(env: Record<string, string>): Promise<{ events: SyncEvent[]; error?: unknown; logged: string }> {
    const log = captureLogger('trace');
    const ctx: AdapterContext = { logger: log.logger, signal: new AbortController().signal, now: () => new Date() };
    const events: SyncEvent[] = [];
    try {
      for await (const event of (await exampleWikiAdapterFactory.create(env, { logger: log.logger })).full(ctx)) events.push(event);
      return { events, logged: JSON.stringify(log.lines()) };
    } catch (error) {
      return { events, error, logged: JSON.stringify(log.lines()) };
    }
  }

  it('walks every listing page by page, sending the token as a bearer header and never in a URL', async () => {
    const { events, error } = await run({ EXAMPLE_WIKI_URL: wiki.baseUrl, EXAMPLE_WIKI_TOKEN: wiki.token });
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual([...Array(3).fill('user'), ...Array(2).fill('group'), ...Array(6).fill('file')]);
    // 3 users, 2 groups and 6 pages at 2 a page: 2 + 1 + 3 requests.
    expect(wiki.requests.map((r) => r.split('?')[0])).toEqual([...Array(2).fill('/api/v1/users'), '/api/v1/groups', ...Array(3).fill('/api/v1/pages')]);
    expect(wiki.requests.filter((r) => r.includes(wiki.token))).toEqual([]);
  });

  it('fails the run with a SourceAuthError on a wrong token, logging neither token', async () => {
    const wrong = 'wrong-token-0123456789';
    const { error, logged } = await run({ EXAMPLE_WIKI_URL: wiki.baseUrl, EXAMPLE_WIKI_TOKEN: wrong });
    expect(error).toBeInstanceOf(SourceAuthError);
    expect(`${(error as Error).message} ${logged}`).not.toContain(wrong);
    expect(logged).not.toContain(wiki.token);
  });

  it('refuses missing or invalid settings naming each variable, never quoting a value', async () => {
    const create = (env: Record<string, string>) => exampleWikiAdapterFactory.create(env, { logger: captureLogger().logger });
    await expect(create({})).rejects.toThrow(
      'Invalid example-wiki adapter settings: EXAMPLE_WIKI_URL: expected an absolute http(s) URL; EXAMPLE_WIKI_TOKEN: is required',
    );
    await expect(create({ EXAMPLE_WIKI_URL: 'ftp://secret-host/x', EXAMPLE_WIKI_TOKEN: 's3cret' })).rejects.toThrow(
      /^(?!.*(secret-host|s3cret)).*EXAMPLE_WIKI_URL: expected an absolute http\(s\) URL$/,
    );
  });
});
