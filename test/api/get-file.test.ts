import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { htmlFile } from '../helpers/staging-fixtures';

describe.each(databaseKinds)('GET /v1/files/{id} on %s', (kind) => {
  let gw: TestGateway;
  // Ids are opaque: slashes, colons, spaces and any Unicode must survive percent-encoding.
  const awkward = 'wiki:Guides/Café menu ☕ 50%';

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    const pdf = await gw.blobs.put(Buffer.from('%PDF-1.4 tiny'));
    await gw.writer.putFiles([
      {
        file: htmlFile(awkward, {
          custom_attributes: JSON.stringify({ team: 'docs' }),
          parent_id: 'wiki:Guides',
          parent_name: 'Guides',
          parent_path: '/Guides',
        }),
        permissions: [],
      },
      {
        file: htmlFile('test:pdf', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: pdf.key,
          sha256: pdf.sha256,
          sha1: pdf.sha1,
          size: pdf.size,
          name: 'Runbook',
        }),
        permissions: [],
      },
      { file: htmlFile('test:gone', { status: 'deleted', body_html: null }), permissions: [] },
    ]);
  });
  afterAll(() => gw.close());

  it('when the file is HTML, then the body is inline and the id matches the request', async () => {
    const res = await gw.get(`/v1/files/${encodeURIComponent(awkward)}`, AUTH);
    expect(res.status).toBe(200);
    expect(res.body['@odata.context']).toBe(`${gw.url}/v1/$metadata#Content`);
    expect(res.body.value).toMatchObject({
      id: awkward,
      status: 'active',
      content: { mime_type: 'text/html', body: `<h1>Article ${awkward}</h1><p>Body of ${awkward}.</p>` },
      custom_attributes: { team: 'docs' },
      parent_info: { id: 'wiki:Guides', name: 'Guides', path: '/Guides' },
      created_by: 'author@example.com',
      last_modified_by: 'editor@example.com',
    });
    expect(res.body.value.content.download_path).toBeUndefined();
  });

  it('when the file is a binary, then it has download_path, size and sha1_hash and no body', async () => {
    const res = await gw.get('/v1/files/test%3Apdf', AUTH);
    expect(res.body.value.content).toEqual({
      mime_type: 'application/pdf',
      download_path: '/test%3Apdf/download',
      size: 13,
      sha1_hash: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
  });

  it('when the file is a tombstone, then it is still described, as deleted', async () => {
    const res = await gw.get('/v1/files/test%3Agone', AUTH);
    expect(res.body.value.status).toBe('deleted');
  });

  it.each([
    ['an unknown id', '/v1/files/test%3Anope', 404, 'NOT_FOUND'],
    ['a path-traversal id', '/v1/files/..%2F..%2Fetc%2Fpasswd', 404, 'NOT_FOUND'],
    ['an over-long id', `/v1/files/${'x'.repeat(1100)}`, 400, 'INPUT_VALIDATION_FAILED'],
    // Not valid percent-encoding, so taken as written (fetch sends an id's lone `%` as it is): an unknown id.
    ['broken percent-encoding', '/v1/files/%E0%A4%A', 404, 'NOT_FOUND'],
  ])('when asked for %s, then a 4xx envelope', async (_what, path, status, code) => {
    const res = await gw.get(path, AUTH);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('is not confused with /v1/files/permissions/metadata', async () => {
    const res = await gw.get('/v1/files/permissions/metadata', AUTH);
    expect(res.body).toEqual({ '@odata.context': `${gw.url}/v1/$metadata#PermissionsMetadata`, model: 'resource_permission' });
  });
});
