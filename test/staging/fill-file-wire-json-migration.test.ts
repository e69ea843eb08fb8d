import { migrateDownTo, migrateLatest } from '../../src/staging/database/run-migrations';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const MIGRATION = '20261128000000_fill_file_wire_json';
const T = '2026-04-01T00:00:00.000Z';

/** File rows as a writer left them before every writer stored the list JSON: no `wire_json` (one with an empty one). */
const OLD_ROWS = [
  {
    id: 'src:a.html',
    source: 'src',
    native_id: 'a.html',
    name: 'A',
    external_url: 'https://x.example/a',
    mime_type: 'text/html',
    status: 'active',
    modified_at: T,
    body_html: '<p>a</p>',
  },
  {
    ...{
      id: 'src:deck',
      source: 'src',
      native_id: 'deck',
      name: 'Deck',
      external_url: 'https://x.example/deck',
      mime_type: 'application/pdf',
      status: 'active',
      modified_at: T,
    },
    ...{ size: 12, sha1: 'ab'.repeat(20), created_at: T, created_by: 'ana@example.com', modified_by: 'bo@example.com' },
    ...{ parent_id: 'src:folder', parent_name: 'Folder', parent_path: '/Folder', custom_attributes: '{"team":"eng"}', blob_key: 'k', wire_json: '' },
  },
  {
    id: 'src:gone.html',
    source: 'src',
    native_id: 'gone.html',
    name: 'Gone',
    external_url: 'https://x.example/gone',
    mime_type: 'text/html',
    status: 'deleted',
    modified_at: T,
    deleted_at: T,
  },
];

/** What the platform is served for them. */
const SERVED = [
  { id: 'src:a.html', name: 'A', external_url: 'https://x.example/a', last_modified_datetime: T, status: 'active', content: { mime_type: 'text/html' } },
  {
    ...{ id: 'src:deck', name: 'Deck', external_url: 'https://x.example/deck', last_modified_datetime: T, status: 'active' },
    content: { mime_type: 'application/pdf', download_path: '/src%3Adeck/download', sha1_hash: 'ab'.repeat(20), size: 12 },
    ...{ created_datetime: T, created_by: 'ana@example.com', last_modified_by: 'bo@example.com', custom_attributes: { team: 'eng' } },
    parent_info: { id: 'src:folder', name: 'Folder', path: '/Folder' },
  },
  {
    id: 'src:gone.html',
    name: 'Gone',
    external_url: 'https://x.example/gone',
    last_modified_datetime: T,
    status: 'deleted',
    content: { mime_type: 'text/html' },
  },
];

describe.each(databaseKinds)('file rows staged without their list JSON, after migrating, on %s', (kind) => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startTestGateway(kind);
    await migrateDownTo(g.database.db, MIGRATION);
    await g.database.db('files').insert(OLD_ROWS);
    await migrateLatest(g.database.db);
  });
  afterAll(() => g.close());

  it('are listed as the gateway serves any file, in one page and page by page', async () => {
    const whole = await g.get('/v1/files?$top=10', AUTH);
    expect(whole.status).toBe(200);
    expect(whole.body.value).toEqual(SERVED);
    const seen: unknown[] = [];
    let next: string | undefined = '/v1/files?$top=1';
    while (next) {
      const res = await g.get(next, AUTH);
      expect(res.status).toBe(200);
      seen.push(...(res.body.value as unknown[]));
      next = res.body['@odata.nextLink']
        ? new URL(res.body['@odata.nextLink'] as string).pathname + new URL(res.body['@odata.nextLink'] as string).search
        : undefined;
    }
    expect(seen).toEqual(SERVED);
  });

  it('hold the JSON the writers store', async () => {
    const rows = (await g.database.db('files').orderBy('id').select('id', 'wire_json')) as Array<{ id: string; wire_json: string }>;
    expect(rows.map((r) => JSON.parse(r.wire_json) as unknown)).toEqual(SERVED);
  });
});
