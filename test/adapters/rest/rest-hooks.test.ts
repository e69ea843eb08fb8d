import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AdapterContext } from '../../../src/adapters/adapter';
import { loadRestManifest, RestAdapter, RestManifestError } from '../../../src/adapters/rest';
import { useBuiltProgram } from '../../helpers/built-program';
import { captureLogger } from '../../helpers/capture-logger';

const MAIN = useBuiltProgram();
const FIXTURES = path.join(__dirname, 'fixtures');
const MANIFEST = path.join(FIXTURES, 'hooks.yaml');
const SECRET = 'hook-secret-xyz';
const NOTES = ['n1', 'n2', 'n3', 'n4', 'n5'].map((id) => ({ id, title: `Note ${id}` }));

interface HookApi {
  url: string;
  requests: string[];
  logins: number;
  expireNext(): void;
  close(): Promise<void>;
}

/** An API with keyset paging (`?after=<id>`) and a challenge-response login, on 127.0.0.1:0. */
async function startHookApi(): Promise<HookApi> {
  const tokens = new Set<string>();
  let expire = false;
  const api: HookApi = {
    url: '',
    requests: [],
    logins: 0,
    expireNext: () => (expire = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', api.url);
      api.requests.push(`${req.method} ${url.pathname}${url.search}`);
      let body = '';
      for await (const chunk of req) body += String(chunk);
      if (url.pathname === '/auth/challenge') return send(res, 200, { nonce: crypto.randomBytes(8).toString('hex') });
      if (url.pathname === '/auth/answer') {
        const { nonce, answer } = JSON.parse(body || '{}') as { nonce: string; answer: string };
        if (answer !== crypto.createHmac('sha256', SECRET).update(nonce).digest('hex')) return send(res, 401, { error: 'wrong answer' });
        api.logins += 1;
        const token = `session-${api.logins}`;
        tokens.add(token);
        return send(res, 200, { token });
      }
      const session = String(req.headers['x-session'] ?? '');
      if (!tokens.has(session)) return send(res, 401, { error: 'no session' });
      if (expire) {
        expire = false;
        tokens.delete(session);
        return send(res, 401, { error: 'session expired' });
      }
      if (url.pathname !== '/notes') return send(res, 404, { error: 'no such route' });
      const after = url.searchParams.get('after');
      const from = after === null ? 0 : NOTES.findIndex((n) => n.id === after) + 1;
      return send(res, 200, { notes: NOTES.slice(from, from + Number(url.searchParams.get('limit') ?? 2)) });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

describe('rest adapter: typed hooks for a paginator and an authenticator a manifest cannot express', () => {
  let api: HookApi;
  beforeEach(async () => {
    api = await startHookApi();
  });
  afterEach(() => api.close());

  async function run(file = MANIFEST): Promise<{ ids: string[]; logs: string }> {
    const { logger, lines } = captureLogger('debug');
    const adapter = new RestAdapter({ name: 'hooked', loaded: loadRestManifest(file), env: { HOOK_API_URL: api.url, HOOK_API_SECRET: SECRET } });
    const ctx: AdapterContext = { logger, signal: new AbortController().signal, now: () => new Date() };
    const ids: string[] = [];
    for await (const event of adapter.full(ctx)) if (event.type === 'file') ids.push(event.file.nativeId);
    return { ids, logs: JSON.stringify(lines()) };
  }

  it('pages with the hook paginator and logs in with the hook authenticator, once, then again once after a 401', async () => {
    const first = await run();
    expect(first.ids).toEqual(NOTES.map((n) => n.id));
    expect(api.requests.filter((r) => r.startsWith('GET /notes'))).toEqual([
      'GET /notes?limit=2',
      'GET /notes?limit=2&after=n2',
      'GET /notes?limit=2&after=n4',
      'GET /notes?limit=2&after=n5',
    ]);
    expect(api.logins).toBe(1);
    api.expireNext();
    expect((await run()).ids).toEqual(NOTES.map((n) => n.id));
    // The second run logged in, was refused once (expired), forgot the session and logged in again.
    expect(api.logins).toBe(3);
    expect(first.logs).not.toContain(SECRET);
  });

  it('loads TypeScript hooks in the built gateway too (plain Node): `manifest check` through the built program', async () => {
    const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
      const child = execFile(process.execPath, [MAIN, 'manifest', 'check', MANIFEST, '--limit', '5'], {
        env: { PATH: process.env.PATH ?? '', HOOK_API_URL: api.url, HOOK_API_SECRET: SECRET },
      });
      let out = '';
      child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
      child.on('close', (exit) => resolve({ stdout: out, code: exit }));
    });
    expect(code).toBe(0);
    expect(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('document '))
        .map((l) => l.split(':')[0]),
    ).toEqual(NOTES.map((n) => `document ${n.id}`));
    expect(stdout).toMatch(/5 document\(s\) shown; \d+ request\(s\) to the API/);
    expect(stdout).not.toContain(SECRET);
  });

  it('fails the listing when the paginator hook throws or answers something else, and the run when the authenticator hook throws', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rest-hooks-'));
    try {
      fs.cpSync(path.join(FIXTURES, 'hooks'), path.join(dir, 'hooks'), { recursive: true });
      const withExport = (name: string): string => {
        const file = path.join(dir, `${name}.yaml`);
        fs.writeFileSync(file, fs.readFileSync(MANIFEST, 'utf8').replace('export: afterLastId', `export: ${name}`));
        return file;
      };
      await expect(run(withExport('failing'))).rejects.toThrow('streams.documents: the paginator hook failing failed: the pager broke');
      const brokenLogin = path.join(dir, 'broken-login.yaml');
      fs.writeFileSync(brokenLogin, fs.readFileSync(MANIFEST, 'utf8').replace('export: challengeLogin', 'export: brokenLogin'));
      await expect(run(brokenLogin)).rejects.toThrow('The authenticator hook brokenLogin failed: the key store is sealed');
      await expect(run(withExport('nonsense'))).rejects.toThrow(
        'streams.documents: the paginator hook nonsense answered neither undefined nor { query } or { url }',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('loading, refused with the path and line in the manifest', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rest-hooks-'));
      fs.cpSync(path.join(FIXTURES, 'hooks'), path.join(dir, 'hooks'), { recursive: true });
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const variant = (replace: [string, string]): string => {
      const file = path.join(dir, 'hooks.yaml');
      fs.writeFileSync(file, fs.readFileSync(MANIFEST, 'utf8').replace(...replace));
      return file;
    };

    it.each<[string, [string, string], RegExp]>([
      [
        'a module outside the manifest folder',
        ['./hooks/keyset-pager.ts', '../keyset-pager.ts'],
        /streams\.documents\.paginator\.module \(line 10\): must be a path inside the manifest's folder/,
      ],
      ['an absolute path', ['./hooks/keyset-pager.ts', '/etc/passwd.ts'], /streams\.documents\.paginator\.module \(line 10\): must be a path inside/],
      ['a missing file', ['./hooks/keyset-pager.ts', './hooks/nowhere.ts'], /streams\.documents\.paginator\.module \(line 10\): no such file/],
      [
        'an export that is not there',
        ['export: afterLastId', 'export: beforeFirstId'],
        /streams\.documents\.paginator\.export \(line 10\): .* has no export "beforeFirstId"/,
      ],
      [
        'an export that is not a function',
        ['export: afterLastId', 'export: notAHook'],
        /streams\.documents\.paginator\.export \(line 10\): "notAHook" .* is not a function/,
      ],
      [
        'another kind of file',
        ['./hooks/keyset-pager.ts', './hooks.yaml'],
        /streams\.documents\.paginator\.module \(line 10\): must be a \.ts, \.js or \.cjs file/,
      ],
    ])('%s', (_, replace, message) => {
      const load = () => loadRestManifest(variant(replace));
      expect(load).toThrow(RestManifestError);
      expect(load).toThrow(message);
    });

    it('a link inside the folder that leads out of it, to a file or a folder', () => {
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'rest-hooks-outside-'));
      try {
        fs.copyFileSync(path.join(dir, 'hooks', 'keyset-pager.ts'), path.join(outside, 'keyset-pager.ts'));
        fs.symlinkSync(path.join(outside, 'keyset-pager.ts'), path.join(dir, 'hooks', 'linked-pager.ts'));
        fs.symlinkSync(outside, path.join(dir, 'linked'));
        for (const module of ['./hooks/linked-pager.ts', './linked/keyset-pager.ts', './hooks/../linked/keyset-pager.ts']) {
          const load = () => loadRestManifest(variant(['./hooks/keyset-pager.ts', module]));
          expect(load).toThrow(RestManifestError);
          expect(load).toThrow(/streams\.documents\.paginator\.module \(line 10\): must be a path inside the manifest's folder .* links out of it/);
        }
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });
  });
});
