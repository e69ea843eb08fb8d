import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

function run(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(TSX, [path.join(ROOT, 'src/main.ts'), ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, cwd: ROOT });
}

function waitFor(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(pattern);
      if (m) resolve(m);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code} before ${pattern}: ${out}`)));
  });
}

describe('content-gateway serve (the README start command, on a fresh data folder)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('migrates, loads the demo corpus, makes a development key, serves every endpoint, and stops cleanly on SIGTERM', async () => {
    const child = run(['serve'], { PORT: '0', SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs') });
    const [, port] = await waitFor(child, /listening on http:\/\/localhost:(\d+)\//);
    const key = fs.readFileSync(path.join(dir, 'dev-api-key'), 'utf8').trim();
    expect(fs.statSync(path.join(dir, 'dev-api-key')).mode & 0o777).toBe(0o600);
    const base = `http://127.0.0.1:${port}`;
    const get = async (p: string) => {
      const res = await fetch(`${base}${p}`, { headers: { Authorization: key } });
      expect(res.status).toBe(200);
      return res;
    };

    const files = (await (await get('/v1/files')).json()) as { value: Array<{ id: string; content: { mime_type: string } }> };
    const types = new Set(files.value.map((f) => f.content.mime_type));
    expect(types).toEqual(
      new Set([
        'text/html',
        'application/pdf',
        'text/plain',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ]),
    );
    const pdf = files.value.find((f) => f.content.mime_type === 'application/pdf');
    const download = await get(`/v1/files/${encodeURIComponent(pdf?.id ?? '')}/download`);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const permissions = await Promise.all(
      files.value.map(async (f) => ((await (await get(`/v1/files/${encodeURIComponent(f.id)}/permissions`)).json()) as { value: { permissions: Array<{ type: string; id: string }> } }).value.permissions),
    );
    const flat = permissions.flat();
    expect(flat).toContainEqual({ type: 'GROUP', id: '*', action: 'VIEW' });
    expect(flat.some((p) => p.type === 'USER')).toBe(true);
    expect(flat.some((p) => p.type === 'GROUP' && p.id !== '*')).toBe(true);

    const groups = (await (await get('/v1/groups')).json()) as { value: Array<{ id: string }> };
    const members = await Promise.all(groups.value.map(async (g) => ((await (await get(`/v1/groups/${encodeURIComponent(g.id)}/members`)).json()) as { value: Array<{ type: string }> }).value));
    expect(members.flat().some((m) => m.type === 'GROUP')).toBe(true); // nested groups
    const users = (await (await get('/v1/users')).json()) as { value: Array<{ state: string }> };
    expect(users.value.map((u) => u.state)).toContain('Inactive');
    await get('/v1/files/permissions/metadata');

    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('fails at start-up with a message naming a bad setting', async () => {
    const child = run(['serve'], { PORT: 'eighty', SQLITE_PATH: path.join(dir, 'gw.sqlite') });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/PORT="eighty"/);
  });
});
