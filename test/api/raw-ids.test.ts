import fc from 'fast-check';
import { encodedIdPath, idPathReadings, isRoutableAsIs, type IdOperation, type IdReading } from '../../src/http/id-path-readings';
import { ContractValidator } from '../helpers/contract-validator';
import { CLIENTS, getExact, sendReading, type Answer, type Client } from '../helpers/id-clients';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { group, htmlFile } from '../helpers/staging-fixtures';

function send(gw: TestGateway, client: Client, reading: IdReading, query = ''): Promise<Answer> {
  return sendReading(gw.url, client, reading, query);
}

const validator = new ContractValidator();

/** The answer must be the contract's answer for the reading it was resolved to. */
async function expectContract(answer: Answer, servedAs: IdReading): Promise<void> {
  const isJson = String(answer.headers['content-type'] ?? '').startsWith('application/json');
  const problems = await validator.problems({
    method: 'GET',
    path: encodedIdPath(servedAs),
    status: answer.status,
    headers: answer.headers,
    body: isJson ? JSON.parse(answer.text) : answer.text,
  });
  expect(problems).toEqual([]);
}

const contentOf = (id: string): string => `bytes of ${id}`;

/** Asserts that `answer` is `reading` served: the right file, bytes, access list or members, with encoded links. */
async function expectServed(gw: TestGateway, answer: Answer, reading: IdReading, context: string): Promise<void> {
  const id = reading.id;
  const where = `${context} → ${reading.operation} ${JSON.stringify(id)}`;
  expect([where, answer.status]).toEqual([where, 200]);
  await expectContract(answer, reading);
  if (reading.operation === 'downloadFile') {
    expect([where, answer.text]).toEqual([where, contentOf(id)]);
    return;
  }
  const body = JSON.parse(answer.text);
  if (reading.operation === 'getFile') {
    expect([where, body.value.id]).toEqual([where, id]);
    if (body.value.content.download_path !== undefined) expect(body.value.content.download_path).toBe(`/${encodeURIComponent(id)}/download`);
    return;
  }
  // Collections were asked for one item of two: the link to the second is always the encoded form.
  const items = reading.operation === 'listFilePermissions' ? body.value.permissions : body.value;
  expect([where, items.map((i: { id: string }) => i.id)]).toEqual([where, [`u:${id}`]]);
  const link = new URL(body['@odata.nextLink']);
  expect([where, `${link.origin}${link.pathname}`]).toEqual([where, `${gw.url}${encodedIdPath(reading)}`]);
}

/** Stages `ids` as binary files (two access entries each) and as groups (two members each). */
async function stage(gw: TestGateway, ids: readonly string[], kinds: { html?: readonly string[] } = {}): Promise<void> {
  const files = [];
  for (const id of ids) {
    const entries = [
      { type: 'USER' as const, id: `u:${id}` },
      { type: 'USER' as const, id: `v:${id}` },
    ];
    if (kinds.html?.includes(id)) {
      files.push({ file: htmlFile(id), permissions: entries });
      continue;
    }
    const blob = await gw.blobs.put(Buffer.from(contentOf(id)));
    files.push({
      file: htmlFile(id, { mime_type: 'text/plain', body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size }),
      permissions: entries,
    });
  }
  await gw.writer.putFiles(files);
  await gw.writer.putGroups(
    ids.map((id) => ({
      group: group(id),
      members: [
        { type: 'USER', id: `u:${id}` },
        { type: 'USER', id: `v:${id}` },
      ],
    })),
  );
}

/**
 * Ids the raw form can carry (the README's rule): no `?` or `#`, no `.`/`..` segment, no trailing
 * `/`, no `%` followed by two hex digits, not `permissions/metadata`. The alphabet has none of
 * the hex digits, so a `%` never starts an escape by accident.
 */
const idArb = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          'x',
          'Y',
          'z',
          'k',
          'Q',
          '-',
          '_',
          '.',
          '~',
          ':',
          ' ',
          '%',
          '+',
          '/',
          "'",
          '!',
          '(',
          '@',
          '=',
          '&',
          ';',
          ',',
          '"',
          '{',
          'é',
          '☕',
          '日',
          '\u{1F600}',
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom('/download', '/permissions', 'permissions', 'demo:', '/', '%') },
    ),
    { minLength: 1, maxLength: 14 },
  )
  .map((parts) => parts.join(''))
  .filter((id) => !id.endsWith('/') && !id.split('/').some((s) => s === '.' || s === '..') && !/%[0-9A-Fa-f]{2}/.test(id) && id !== 'permissions/metadata');

describe('the readings of an id path', () => {
  it('put the encoded form of any id first, and the router takes it as it is', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
        fc.constantFrom<IdOperation>('getFile', 'downloadFile', 'listFilePermissions', 'listGroupMembers'),
        (id, operation) => {
          const path = encodedIdPath({ operation, id });
          expect(isRoutableAsIs(path)).toBe(true);
          expect(idPathReadings(path)?.[0]).toEqual({ operation, id });
        },
      ),
    );
  });
});

describe.each(databaseKinds)('ids reached encoded or raw, on %s', (kind) => {
  let gw: TestGateway;
  const staged = new Set<string>();

  beforeAll(async () => {
    gw = await startTestGateway(kind);
  });
  afterAll(() => gw.close());

  /** What a raw GET of file `id` reaches under the rule: a stem that exists takes the operation. */
  function rawGetFileReaches(id: string): IdReading {
    const m = /^(.+)\/(download|permissions)$/.exec(id);
    if (m?.[1] !== undefined && staged.has(m[1])) return { operation: m[2] === 'download' ? 'downloadFile' : 'listFilePermissions', id: m[1] };
    return { operation: 'getFile', id };
  }

  it('serves every file, download, access list and member list to encoded, Python-quoted and fetch-built paths', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(idArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (base, withSuffixed) => {
        const ids = withSuffixed && base[0] ? [...base, `${base[0]}/download`, `${base[0]}/permissions`] : base;
        await stage(gw, ids);
        for (const id of ids) staged.add(id);
        for (const id of ids) {
          for (const client of CLIENTS) {
            // `$top=1` for when the raw GET is shadowed by an access list (both `a` and `a/permissions` exist).
            const get = await send(gw, client, { operation: 'getFile', id }, '?$top=1');
            await expectServed(gw, get, client === 'encoded' ? { operation: 'getFile', id } : rawGetFileReaches(id), `${client} GET`);
            for (const operation of ['downloadFile', 'listFilePermissions', 'listGroupMembers'] as const) {
              const query = operation === 'downloadFile' ? '' : '?$top=1';
              await expectServed(gw, await send(gw, client, { operation, id }, query), { operation, id }, `${client} ${operation}`);
            }
          }
        }
      }),
      {
        numRuns: 25,
        examples: [
          [['demo:company/expense-policy.html'], false],
          [['permissions', 'a b%c+d/é☕'], true],
          [['x/download', 'y/permissions', '/lead', 'two//slashes'], false],
        ],
      },
    );
  });

  describe('ambiguous raw paths', () => {
    beforeAll(async () => {
      await stage(gw, [
        'amb',
        'amb/download',
        'amb/permissions',
        'solo/download',
        'solo/permissions',
        'permissions/metadata',
        'lit/50%2F50',
        'both/x%2Fy',
        'both/x/y',
        'gone/download',
        '100%',
        '%E0%A4%A',
      ]);
      await stage(gw, ['web:page', 'web:page/download'], { html: ['web:page'] });
      await gw.writer.putFiles([{ file: htmlFile('gone', { status: 'deleted', body_html: null }), permissions: [] }]);
    });

    it.each<[string, IdReading]>([
      ['/v1/files/amb/download', { operation: 'downloadFile', id: 'amb' }],
      ['/v1/files/amb/permissions?$top=1', { operation: 'listFilePermissions', id: 'amb' }],
      ['/v1/files/amb%2Fdownload', { operation: 'getFile', id: 'amb/download' }],
      ['/v1/files/amb%2Fpermissions', { operation: 'getFile', id: 'amb/permissions' }],
      ['/v1/files/amb/download/download', { operation: 'downloadFile', id: 'amb/download' }],
      ['/v1/files/solo/download', { operation: 'getFile', id: 'solo/download' }],
      ['/v1/files/solo/permissions', { operation: 'getFile', id: 'solo/permissions' }],
      ['/v1/files/solo/permissions/permissions?$top=1', { operation: 'listFilePermissions', id: 'solo/permissions' }],
      ['/v1/files/permissions%2Fmetadata', { operation: 'getFile', id: 'permissions/metadata' }],
      ['/v1/files/lit/50%2F50', { operation: 'getFile', id: 'lit/50%2F50' }],
      ['/v1/files/lit/50%2F50/download', { operation: 'downloadFile', id: 'lit/50%2F50' }],
      ['/v1/files/both/x%2Fy', { operation: 'getFile', id: 'both/x/y' }],
      ['/v1/files/both%2Fx%252Fy', { operation: 'getFile', id: 'both/x%2Fy' }],
      ['/v1/files/100%', { operation: 'getFile', id: '100%' }],
      ['/v1/files/100%/download', { operation: 'downloadFile', id: '100%' }],
      ['/v1/files/%E0%A4%A', { operation: 'getFile', id: '%E0%A4%A' }],
      ['/v1/files/amb/download/', { operation: 'downloadFile', id: 'amb' }],
    ])('GET %s serves %j', async (path, reading) => {
      await expectServed(gw, await getExact(gw.url, path), reading, path);
    });

    it('keeps /v1/files/permissions/metadata the metadata endpoint, even beside a file of that id', async () => {
      const res = await gw.get('/v1/files/permissions/metadata', AUTH);
      expect(res.body.model).toBe('resource_permission');
    });

    it('prefers an existing stem even when its operation cannot serve it (an HTML file, a tombstone): the encoded form reaches the other file', async () => {
      for (const path of ['/v1/files/web:page/download', '/v1/files/gone/download']) {
        const res = await gw.get(path, AUTH);
        expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
      expect((await gw.get('/v1/files/web%3Apage%2Fdownload', AUTH)).body.value.id).toBe('web:page/download');
    });

    it('answers a raw path no reading of which exists with a 404 naming the preferred reading', async () => {
      const res = await gw.get('/v1/files/no/such/file/download', AUTH);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'File "no/such/file" not found.' });
      const members = await gw.get('/v1/groups/no:such/group/members', AUTH);
      expect(members.body.error).toEqual({ code: 'NOT_FOUND', message: 'Group "no:such/group" not found.' });
    });

    it('still refuses invalid percent-encoding outside the id routes', async () => {
      const res = await gw.get('/v1/users%E0%A4%A', AUTH);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INPUT_VALIDATION_FAILED');
    });

    it('authenticates raw paths like any other', async () => {
      const anonymous = await fetch(`${gw.url}/v1/files/solo/download`);
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('AUTHENTICATION_FAILED');
    });
  });
});
