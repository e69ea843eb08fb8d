import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { EVERYONE, type SyncEvent } from '../../../src/adapters/adapter';
import { createFilesystemAdapter, filesystemCheckpointSchema } from '../../../src/adapters/filesystem';
import { bytesOf, collect, context, failuresOf, fileOf, filesOf, htmlOf, makeDir, makeTree, removeTrees, writeFiles } from './tree-fixture';

/**
 * The adapter's events, read straight from `full()` (no database): how a tree, its sidecars and
 * its directory file become users, groups, files and failures. The sync through the engine is in
 * filesystem-sync.test.ts.
 */
afterAll(removeTrees);

const full = (root: string, extra: { baseUrl?: string; directoryFile?: string } = {}, ctx = context()) =>
  collect(createFilesystemAdapter({ root, sourceName: 'fs', ...extra }).full(ctx));
const ids = (events: SyncEvent[]) => filesOf(events).map((f) => f.nativeId);
const accessOf = async (root: string, nativeId: string) => fileOf(await full(root), nativeId).access;

describe('access from sidecars', () => {
  it('inherits a sidecar into subfolders and lets a deeper sidecar replace it', async () => {
    const events = await full(
      makeTree({
        'a/_access.yaml': 'groups: [eng]\n',
        'a/one.txt': 'x',
        'a/b/two.txt': 'x',
        'a/b/c/_access.json': '{"users": ["bo"]}',
        'a/b/c/three.txt': 'x',
        'a/b/c/d/four.txt': 'x',
      }),
    );
    expect(fileOf(events, 'a/one.txt').access).toEqual([{ type: 'GROUP', nativeId: 'eng' }]);
    expect(fileOf(events, 'a/b/two.txt').access).toEqual([{ type: 'GROUP', nativeId: 'eng' }]);
    // Replaced, not merged: eng is gone below c/.
    expect(fileOf(events, 'a/b/c/three.txt').access).toEqual([{ type: 'USER', nativeId: 'bo' }]);
    expect(fileOf(events, 'a/b/c/d/four.txt').access).toEqual([{ type: 'USER', nativeId: 'bo' }]);
  });

  it('applies a per-file override only to that file, and not to subfolders', async () => {
    const events = await full(
      makeTree({ '_access.yaml': 'public: true\nfiles:\n  secret.txt: { users: [ana] }\n', 'open.txt': 'x', 'secret.txt': 'x', 'sub/secret.txt': 'x' }),
    );
    expect(fileOf(events, 'open.txt').access).toEqual([EVERYONE]);
    expect(fileOf(events, 'secret.txt').access).toEqual([{ type: 'USER', nativeId: 'ana' }]);
    expect(fileOf(events, 'sub/secret.txt').access).toEqual([EVERYONE]);
  });

  it('denies by default where no sidecar is at or above the folder', async () => {
    const root = makeTree({ 'loose.txt': 'x', 'deep/er/loose.txt': 'x', 'open/_access.yaml': 'public: true\n', 'open/ok.txt': 'x' });
    const events = await full(root);
    expect(fileOf(events, 'loose.txt').access).toEqual([]);
    expect(fileOf(events, 'deep/er/loose.txt').access).toEqual([]);
    expect(fileOf(events, 'open/ok.txt').access).toEqual([EVERYONE]);
  });

  it('treats an empty rule as an explicit "no one" that replaces a public parent', async () => {
    expect(await accessOf(makeTree({ '_access.yaml': 'public: true\n', 'locked/_access.yaml': '{}\n', 'locked/x.txt': 'x' }), 'locked/x.txt')).toEqual([]);
  });

  it('matches overrides whatever the normalisation of the name, and gives NFC native ids', async () => {
    const nfd = 'cafe\u0301.txt';
    const events = await full(makeTree({ '_access.yaml': `public: true\nfiles:\n  "caf\u00e9.txt": { users: [ana] }\n`, [nfd]: 'x' }));
    expect(ids(events)).toEqual(['caf\u00e9.txt']);
    expect(fileOf(events, 'caf\u00e9.txt').access).toEqual([{ type: 'USER', nativeId: 'ana' }]);
  });
});

describe('sidecar problems fail the files they govern, and only those', () => {
  it.each([
    ['an unknown user', 'users: [zed]\n', /unknown user "zed"/],
    ['an unknown group', 'groups: [sales]\n', /unknown group "sales"/],
    ['malformed YAML', 'groups: [eng\n', /cannot parse/],
    ['an unknown key', 'group: [eng]\n', /invalid content/],
    ['public together with principals', 'public: true\nusers: [ana]\n', /cannot be combined/],
    ['an override for a missing file', 'public: true\nfiles:\n  nope.txt: { users: [ana] }\n', /"nope\.txt", which is not a file in that folder/],
    ['an override reaching out of the folder', 'public: true\nfiles:\n  ../x.txt: { users: [ana] }\n', /no path/],
    ['an empty document', '', /invalid content/],
  ])('a sidecar with %s: its folder and inheriting subfolders fail, naming it; the rest syncs', async (_label, sidecar, problem) => {
    const root = makeTree({
      '_access.yaml': 'public: true\n',
      'ok.txt': 'x',
      'team/_access.yaml': sidecar,
      'team/x.txt': 'x',
      'team/sub/y.txt': 'x',
      'team/own/_access.yaml': 'users: [ana]\n',
      'team/own/z.txt': 'x',
    });
    const events = await full(root);
    expect(ids(events)).toEqual(['ok.txt', 'team/own/z.txt']);
    const failures = failuresOf(events);
    expect(failures.map((f) => f.nativeId)).toEqual(['team/x.txt', 'team/sub/y.txt']);
    for (const f of failures) {
      expect(f.message).toContain(path.join(root, 'team', '_access.yaml'));
      expect(f.message).toMatch(problem);
    }
    expect(events.at(-1)?.type).toBe('checkpoint');
  });

  it('an unknown principal in a per-file override fails only that file', async () => {
    const events = await full(
      makeTree({ 'hr/_access.yaml': 'groups: [eng]\nfiles:\n  pay.docx: { users: [zed] }\n', 'hr/pay.docx': 'x', 'hr/policy.html': '<h1>P</h1>' }),
    );
    expect(ids(events)).toEqual(['hr/policy.html']);
    expect(failuresOf(events)).toEqual([{ nativeId: 'hr/pay.docx', message: expect.stringMatching(/hr\/_access\.yaml: unknown user "zed"/) }]);
  });

  it('fails the files of a folder with both sidecar formats, or with a malformed JSON sidecar', async () => {
    const both = makeTree({ 'a/_access.json': '{}', 'a/_access.yaml': '{}', 'a/x.txt': 'x' });
    expect(failuresOf(await full(both))).toEqual([{ nativeId: 'a/x.txt', message: expect.stringMatching(/both _access\.yaml and _access\.json/) }]);
    const json = makeTree({ 'a/_access.json': '{"users": [', 'a/x.txt': 'x' });
    expect(failuresOf(await full(json))[0]?.message).toContain(`${path.join(json, 'a', '_access.json')}: cannot parse`);
  });

  it('refuses a sidecar that links out of the root (its files fail), and follows one that stays inside', async () => {
    const outside = makeTree({ 'rule.yaml': 'public: true\n' });
    const root = makeTree({ 'a/x.txt': 'x', 'b/x.txt': 'x', 'rules/open.yaml': 'public: true\n' });
    fs.symlinkSync(path.join(outside, 'rule.yaml'), path.join(root, 'a', '_access.yaml'));
    fs.symlinkSync(path.join(root, 'rules', 'open.yaml'), path.join(root, 'b', '_access.yaml'));
    const events = await full(root);
    expect(failuresOf(events)).toEqual([{ nativeId: 'a/x.txt', message: expect.stringMatching(/a\/_access\.yaml: is a symbolic link out of the root/) }]);
    expect(fileOf(events, 'b/x.txt').access).toEqual([EVERYONE]);
  });
});

describe('the directory file', () => {
  it('yields users, then groups, then files, then one checkpoint', async () => {
    const events = await full(makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'x' }));
    expect(events.map((e) => e.type)).toEqual(['user', 'user', 'group', 'group', 'file', 'checkpoint']);
    expect(events.slice(0, 4)).toEqual([
      { type: 'user', user: { nativeId: 'ana', email: 'ana@example.com', fullName: 'Ana', active: true } },
      { type: 'user', user: { nativeId: 'bo', email: 'bo@example.com', fullName: 'Bo', active: false } },
      { type: 'group', group: { nativeId: 'core', name: 'Core', members: [{ type: 'USER', nativeId: 'bo' }] } },
      {
        type: 'group',
        group: {
          nativeId: 'eng',
          name: 'Engineering',
          members: [
            { type: 'GROUP', nativeId: 'core' },
            { type: 'USER', nativeId: 'ana' },
          ],
        },
      },
    ]);
    const checkpoint = events.at(-1);
    expect(checkpoint?.type === 'checkpoint' && filesystemCheckpointSchema.safeParse(checkpoint.checkpoint).success).toBe(true);
  });

  it('stops the run when it is missing, doubled or malformed, naming it', async () => {
    const missing = makeTree({ '_access.yaml': 'public: true\n' }, false);
    await expect(full(missing)).rejects.toThrow(`${path.join(missing, '_directory.yaml')}: is missing`);
    const doubled = makeTree({ '_directory.json': '{}' });
    await expect(full(doubled)).rejects.toThrow(/exists as both \.yaml and \.json/);
    const bad = makeTree({ '_directory.yaml': 'groups:\n  - { id: g, name: G, members: [{ user: ghost }] }\n' });
    await expect(full(bad)).rejects.toThrow(`${path.join(bad, '_directory.yaml')}: group "g" has unknown user member "ghost"`);
    const unparsable = makeTree({ '_directory.yaml': 'users: [\n' });
    await expect(full(unparsable)).rejects.toThrow(/_directory\.yaml: cannot parse/);
  });

  it('reads a configured directory file from anywhere (JSON too), never as content when inside the tree', async () => {
    const elsewhere = makeDir();
    writeFiles(elsewhere, { 'people.json': JSON.stringify({ users: [{ id: 'x', email: 'x@x.io', full_name: 'X', active: true }] }) });
    const root = makeTree({ '_access.yaml': 'users: [x]\n', 'a.txt': 'x', 'people.yaml': 'users: []\n' }, false);
    const events = await full(root, { directoryFile: path.join(elsewhere, 'people.json') });
    expect(events.filter((e) => e.type === 'user')).toHaveLength(1);
    expect(fileOf(events, 'a.txt').access).toEqual([{ type: 'USER', nativeId: 'x' }]);
    // people.yaml is unsupported anyway; an in-tree directory file named like content is left out.
    const inTree = makeTree({ '_access.yaml': 'public: true\n', 'people.md': '# not content\n' }, false);
    writeFiles(inTree, { 'people.md': 'users: []\n' });
    expect(ids(await full(inTree, { directoryFile: 'people.md' }))).toEqual([]);
    await expect(full(root, { directoryFile: '/nope/dir.yaml' })).rejects.toThrow(/\/nope\/dir\.yaml \(FILESYSTEM_DIRECTORY_FILE\): cannot be read/);
  });

  it('stops the run when the root is not a readable folder', async () => {
    await expect(full('/does/not/exist')).rejects.toThrow(/FILESYSTEM_ROOT \/does\/not\/exist: cannot be read as a folder/);
  });
});

describe('files', () => {
  it('describes each file: ids, titles, MIME types, content, URLs, parent folder', async () => {
    const root = makeTree({
      '_access.yaml': 'public: true\n',
      'top.HTML': '\ufeff<html><head><title> Tea &amp; Cake &#x2615; </title></head><body><h1>Other</h1></body></html>',
      'docs/no-title.htm': '<h1 class="x">First <em>heading</em></h1><h1>Second</h1>',
      'docs/untitled.html': '<p>no headings</p>',
      'docs/plain.txt': 'hello',
      'docs/notes.md': '# Release notes\n\nShip it.\n',
      'docs/deck.pdf': '%PDF-1.4 fake',
    });
    const events = await full(root, { baseUrl: 'https://kb.example/docs' });
    expect(ids(events)).toEqual(['top.HTML', 'docs/deck.pdf', 'docs/no-title.htm', 'docs/notes.md', 'docs/plain.txt', 'docs/untitled.html']);
    expect(fileOf(events, 'top.HTML')).toEqual({
      nativeId: 'top.HTML',
      name: 'Tea & Cake \u2615',
      externalUrl: 'https://kb.example/docs/top.HTML',
      mimeType: 'text/html',
      content: {
        kind: 'html',
        html: '<html><head><title> Tea &amp; Cake &#x2615; </title></head><body><h1>Other</h1></body></html>',
        version: expect.stringMatching(/^\d+(\.\d+)?:96$/) as unknown,
      },
      access: [EVERYONE],
      parent: { nativeId: '/', name: path.basename(root), path: '/' },
    });
    expect(fileOf(events, 'docs/no-title.htm').name).toBe('First heading');
    expect(fileOf(events, 'docs/untitled.html').name).toBe('untitled');
    const notes = fileOf(events, 'docs/notes.md');
    expect(notes).toMatchObject({ name: 'Release notes', mimeType: 'text/html', parent: { nativeId: 'docs', name: 'docs', path: '/docs' } });
    expect(htmlOf(notes)).toContain('<h1>Release notes</h1>');
    const plain = fileOf(events, 'docs/plain.txt');
    const stat = fs.statSync(path.join(root, 'docs/plain.txt'));
    expect(plain).toMatchObject({ name: 'plain', mimeType: 'text/plain', content: { kind: 'binary', version: `${stat.mtimeMs}:5` } });
    expect((await bytesOf(plain)).toString()).toBe('hello');
    expect(fileOf(events, 'docs/deck.pdf').mimeType).toBe('application/pdf');
    // Without a base URL: the file:// URL of the file.
    expect(fileOf(await full(root), 'docs/plain.txt').externalUrl).toBe(`file://${path.join(root, 'docs', 'plain.txt')}`);
  });

  it('renders Markdown with raw HTML escaped: a <script> in a .md file is never served as markup', async () => {
    const events = await full(
      makeTree({ '_access.yaml': 'public: true\n', 'evil.md': '# Hi\n\n<script>alert("x")</script>\n\n<img src=x onerror=alert(1)>\n' }),
    );
    const html = htmlOf(fileOf(events, 'evil.md'));
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<img/i);
  });

  it('takes any Unicode name, NFC-normalised in ids and percent-encoded in URLs', async () => {
    const names = ['日本語/メモ.md', 'emoji 🎉/party 🎈.txt', 'Ελληνικά.html', 'cafe\u0301/cre\u0300me.txt'];
    const root = makeTree({ '_access.yaml': 'public: true\n', ...Object.fromEntries(names.map((n) => [n, '# x\n'])) });
    const events = await full(root, { baseUrl: 'https://kb.example' });
    expect(ids(events).sort()).toEqual(names.map((n) => n.normalize('NFC')).sort());
    expect(fileOf(events, 'caf\u00e9/cr\u00e8me.txt').externalUrl).toBe('https://kb.example/caf%C3%A9/cr%C3%A8me.txt');
    expect((await bytesOf(fileOf(events, 'caf\u00e9/cr\u00e8me.txt'))).toString()).toBe('# x\n');
  });

  it('takes a name that looks like a Windows drive prefix, which is an ordinary name on POSIX', async () => {
    const root = makeTree({ '_access.yaml': 'public: true\n', 'C:notes.md': '# x\n', 'Z:=77%/a.txt': 'x' });
    const events = await full(root);
    expect(ids(events).sort()).toEqual(['C:notes.md', 'Z:=77%/a.txt']);
  });

  it('keeps the first of two names that differ only in normalisation', async () => {
    const root = makeTree({ '_access.yaml': 'public: true\n', 'caf\u00e9.txt': 'nfc', 'cafe\u0301.txt': 'nfd' });
    const logs: Array<Record<string, unknown>> = [];
    const events = await full(root, {}, context({ logs }));
    expect(ids(events)).toEqual(['caf\u00e9.txt']);
    expect(logs.find((l) => l.ignored)?.ignored).toEqual({ 'name clashes after Unicode normalisation': 1 });
  });

  it('skips unsupported types and reserved names, and logs the count by extension at the end', async () => {
    const root = makeTree({
      '_access.yaml': 'public: true\n',
      'ok.txt': 'x',
      'data.csv': 'x',
      'more.CSV': 'x',
      'sheet.xlsx': 'x',
      noext: 'x',
      '.hidden.txt': 'x',
      '_acess.yaml': 'public: true\n',
      '_drafts/secret.html': 'x',
      '.git/config.txt': 'x',
    });
    const logs: Array<Record<string, unknown>> = [];
    const events = await full(root, {}, context({ logs }));
    expect(ids(events)).toEqual(['ok.txt']);
    const line = logs.find((l) => 'skipped' in l);
    expect(line).toMatchObject({ skipped: 4, byExtension: { '.csv': 2, '.xlsx': 1, '(none)': 1 }, ignored: { 'reserved name': 4 } });
    expect(line?.msg).toMatch(/skipped files of unsupported types/);
  });
});

describe('paths never escape the root', () => {
  it('skips links that resolve outside the root (files and folders), follows links inside it, and stops at cycles', async () => {
    const outside = makeTree({ 'secret.txt': 'outside the root', 'dir/also.txt': 'outside' });
    const root = makeTree({
      '_access.yaml': 'public: true\n',
      'ok.txt': 'inside',
      'real/doc.txt': 'real',
      'locked/_access.yaml': 'users: [ana]\n',
      'locked/pay.txt': 'pay',
    });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'leak-dir'));
    fs.symlinkSync('../../' + path.basename(outside) + '/secret.txt', path.join(root, 'real', 'relative-leak.txt'));
    fs.symlinkSync(path.join(root, 'nowhere.txt'), path.join(root, 'broken.txt'));
    fs.symlinkSync(path.join(root, 'ok.txt'), path.join(root, 'alias.txt'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'mirror'));
    fs.symlinkSync('..', path.join(root, 'real', 'loop'));
    const logs: Array<Record<string, unknown>> = [];
    const events = await full(root, {}, context({ logs }));
    expect(ids(events)).toEqual(['alias.txt', 'ok.txt', 'locked/pay.txt', 'mirror/doc.txt', 'real/doc.txt']);
    for (const file of filesOf(events)) expect((await bytesOf(file)).toString()).not.toMatch(/outside/);
    expect((await bytesOf(fileOf(events, 'alias.txt'))).toString()).toBe('inside');
    expect(logs.find((l) => l.ignored)?.ignored).toEqual({
      'symbolic link out of the root': 4, // leak.txt, leak-dir, and relative-leak.txt under real/ and mirror/
      'broken symbolic link': 1,
      'symbolic link cycle': 2, // real/loop and mirror/loop both lead back to the root
    });
  });

  it('re-checks at read time: a file swapped for a link out of the root is not read', async () => {
    const outside = makeTree({ 'secret.txt': 'outside the root' });
    const root = makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'inside' });
    const file = fileOf(await full(root), 'a.txt');
    fs.rmSync(path.join(root, 'a.txt'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'a.txt'));
    await expect(bytesOf(file)).rejects.toThrow(/now leads out of the root/);
    fs.rmSync(path.join(root, 'a.txt'));
    await expect(bytesOf(file)).rejects.toThrow(/gone before it could be read/);
  });

  it('re-checks at read time: a folder swapped for a link out of the root is not read through', async () => {
    const outside = makeTree({ 'a.txt': 'outside the root' });
    const root = makeTree({ '_access.yaml': 'public: true\n', 'sub/a.txt': 'inside' });
    const file = fileOf(await full(root), 'sub/a.txt');
    fs.renameSync(path.join(root, 'sub'), path.join(root, 'moved'));
    fs.symlinkSync(outside, path.join(root, 'sub'));
    await expect(bytesOf(file)).rejects.toThrow(/now leads out of the root/);
    // A link back inside the root to the very file the walk found is fine.
    fs.rmSync(path.join(root, 'sub'));
    fs.symlinkSync(path.join(root, 'moved'), path.join(root, 'sub'));
    expect((await bytesOf(file)).toString()).toBe('inside');
  });

  it('fails, without waiting, on a file swapped for a FIFO after the walk', async () => {
    const root = makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'inside' });
    const file = fileOf(await full(root), 'a.txt');
    fs.rmSync(path.join(root, 'a.txt'));
    execFileSync('mkfifo', [path.join(root, 'a.txt')]);
    await expect(bytesOf(file)).rejects.toThrow(/no longer a regular file/);
  });

  it('reads a file replaced inside the root between the walk and the read (a new inode, as an editor saves)', async () => {
    const root = makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'before' });
    const file = fileOf(await full(root), 'a.txt');
    fs.writeFileSync(path.join(root, 'a.tmp'), 'after');
    fs.renameSync(path.join(root, 'a.tmp'), path.join(root, 'a.txt'));
    expect((await bytesOf(file)).toString()).toBe('after');
  });

  it('follows a root that is itself a link', async () => {
    const real = makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'x' });
    const link = path.join(makeDir(), 'root-link');
    fs.symlinkSync(real, link);
    expect(ids(await full(link))).toEqual(['a.txt']);
  });
});

describe('cancellation', () => {
  it('stops walking once the signal aborts, with an AbortError (so nothing is swept)', async () => {
    const root = makeTree({ '_access.yaml': 'public: true\n', ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`d${i % 4}/f${i}.txt`, 'x'])) });
    const controller = new AbortController();
    const seen: SyncEvent[] = [];
    const run = async () => {
      for await (const e of createFilesystemAdapter({ root }).full(context({ signal: controller.signal }))) {
        seen.push(e);
        if (e.type === 'file') controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.filter((e) => e.type === 'file')).toHaveLength(1);
    expect(seen.some((e) => e.type === 'checkpoint')).toBe(false);
  });

  it('stops between directory events too', async () => {
    const controller = new AbortController();
    const iterator = createFilesystemAdapter({ root: makeTree({ 'a.txt': 'x' }) })
      .full(context({ signal: controller.signal }))
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'user' });
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
