import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRestManifest, restAdapterFactory, RestManifestError } from '../../../src/adapters/rest';
import { configuredAdapters } from '../../../src/adapters/configured-adapters';
import { adapterFactories } from '../../../src/adapters/adapter-registry';

const VALID = `version: 1
requester:
  url_base: \${env:API_URL}
  authenticator:
    type: bearer
    token: \${env:API_TOKEN}
streams:
  users:
    requester: { path: /users }
    map: { id: id, email: email }
  documents:
    requester: { path: /docs }
    paginator: { type: offset, page_size: 50 }
    record_selector: data.items
    map: { id: id, name: title, url: link }
    content: { html: { template: '<p>{{record.text}}</p>' } }
    access: { public: 'visibility = "public"' }
`;

function problems(text: string): string {
  try {
    parseRestManifest(text, 'm.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(RestManifestError);
    return (error as Error).message;
  }
  throw new Error('the manifest was accepted');
}

describe('rest manifests: validated against the published schema, errors named by path and line', () => {
  it('accepts a valid manifest', () => {
    expect(parseRestManifest(VALID, 'm.yaml').manifest.streams.documents.paginator).toEqual({ type: 'offset', page_size: 50 });
  });

  it('names the path and the line of unknown fields, missing fields and bad values', () => {
    const text = VALID.replace('map: { id: id, email: email }', 'map: { id: id, mail: email }').replace('type: offset, page_size: 50', 'type: sideways');
    const message = problems(text);
    expect(message).toContain('streams.users.map.mail (line 10): unknown field "mail"');
    expect(message).toContain('streams.users.map (line 10): missing field "email"');
    expect(message).toMatch(/streams\.documents\.paginator\.type \(line 13\): must be one of "none", "offset"/);
  });

  it('refuses a secret written in the file: only references to the environment', () => {
    const message = problems(VALID.replace('token: ${env:API_TOKEN}', 'token: s3cr3t-value'));
    expect(message).toContain('requester.authenticator.token (line 6): a secret must be a reference to the environment');
    expect(message).not.toContain('s3cr3t-value');
  });

  it('refuses `ignore` on identity and access streams, and on rules every stream shares', () => {
    const onUsers = VALID.replace(
      'requester: { path: /users }',
      'requester: { path: /users, error_handler: { response_filters: [{ http_codes: [404], action: ignore }] } }',
    );
    expect(problems(onUsers)).toMatch(/streams\.users\.requester\.error_handler\.response_filters\[0\]\.action \(line 9\): "ignore" is refused here/);
    const shared = VALID.replace('  authenticator:', '  error_handler: { response_filters: [{ http_codes: [500], action: ignore }] }\n  authenticator:');
    expect(problems(shared)).toMatch(
      /requester\.error_handler\.response_filters\[0\]\.action \(line 4\): "ignore" is refused here: it would take a failed read of every stream/,
    );
    const onBody = VALID.replace(
      "content: { html: { template: '<p>{{record.text}}</p>' } }",
      "content: { html: { template: '{{{detail.body}}}', request: { path: '/docs/{record.id}', error_handler: { response_filters: [{ http_codes: [404], action: ignore }] } } } }",
    );
    expect(parseRestManifest(onBody, 'm.yaml').manifest.streams.documents.content.html?.request?.path).toBe('/docs/{record.id}');
  });

  it('compiles every JSONata expression and template at load, naming where a broken one is', () => {
    const message = problems(VALID.replace('name: title', 'name: "title & ("').replace('<p>{{record.text}}</p>', '<p>{{#record}}</p>'));
    expect(message).toMatch(/streams\.documents\.map\.name \(line 15\): .*"title & \("/);
    expect(message).toMatch(/streams\.documents\.content\.html\.template \(line 16\): Unclosed section/);
  });

  it('refuses access that names nobody, and inheritance without containers', () => {
    expect(problems(VALID.replace(`access: { public: 'visibility = "public"' }`, 'access: {}'))).toContain(
      'streams.documents.access (line 17): give at least one of public, field, request or inherit',
    );
    expect(problems(VALID.replace(`access: { public: 'visibility = "public"' }`, 'access: { inherit: space_id }'))).toContain('needs streams.containers');
  });

  it('is read from REST_MANIFEST; a missing variable a manifest refers to is named, never a value', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rest-manifest-'));
    const file = path.join(dir, 'm.yaml');
    fs.writeFileSync(file, VALID);
    await expect(restAdapterFactory.create({}, { logger: undefined as never })).rejects.toThrow('REST_MANIFEST: is required');
    const adapter = await restAdapterFactory.create({ REST_MANIFEST: file, REST_SOURCE_NAME: 'crm' }, { logger: undefined as never });
    expect(adapter.name).toBe('crm');
    const ctx = { logger: undefined as never, signal: new AbortController().signal, now: () => new Date() };
    await expect(adapter.full(ctx)[Symbol.asyncIterator]().next()).rejects.toThrow(
      'requester.url_base refers to the environment variable API_URL, which is not set',
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is skipped by `sync --all` until REST_MANIFEST is set', () => {
    const rest = adapterFactories.find((f) => f.name === 'rest')!;
    expect(configuredAdapters(adapterFactories, {}).skipped).toContain(rest);
    expect(configuredAdapters(adapterFactories, { REST_MANIFEST: 'x.yaml' }).configured).toContain(rest);
  });
});
