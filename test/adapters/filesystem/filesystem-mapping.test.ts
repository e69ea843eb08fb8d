import fc from 'fast-check';
import { EVERYONE } from '../../../src/adapters/adapter';
import { escapeHtml } from '../../../src/lib/escape-html';
import {
  AccessRuleError,
  baseTitle,
  checkOverrides,
  checkRelativePath,
  DirectoryFileError,
  externalUrlOf,
  extensionOf,
  fileTypeOf,
  fileVersion,
  htmlTitle,
  inheritedRule,
  isInsideRoot,
  isReservedName,
  NO_SIDECAR,
  parseDirectory,
  parseSidecar,
  renderMarkdown,
  resolveFileAccess,
  stripBom,
  toNativeId,
  type FolderRule,
} from '../../../src/adapters/filesystem/filesystem-mapping';
import { DIRECTORY } from './tree-fixture';

const directory = parseDirectory(DIRECTORY, '/corpus/_directory.yaml');
const folder = (yaml: string, file = '/corpus/team/_access.yaml'): FolderRule => ({ kind: 'rule', sidecar: file, sidecarRule: parseSidecar(yaml, file) });

describe('paths and native ids', () => {
  it('uses the relative path, NFC-normalised, as the native id', () => {
    expect(toNativeId('docs/cafe\u0301.html')).toBe('docs/caf\u00e9.html');
    expect(toNativeId('日本語/メモ.md')).toBe('日本語/メモ.md');
  });

  it.each(['', '/etc/passwd', '../x', 'a/../b', 'a/./b', 'a//b', 'a/', 'a\0b', '..'])('refuses %j', (p) => {
    expect(() => checkRelativePath(p)).toThrow(/not a relative path inside the root/);
  });

  it('refuses a drive prefix on Windows only, where it would name another drive', () => {
    expect(() => checkRelativePath('C:/x', 'win32')).toThrow(/not a relative path inside the root/);
    expect(() => checkRelativePath('c:x', 'win32')).toThrow(/not a relative path inside the root/);
    expect(checkRelativePath('C:x', 'linux')).toBe('C:x');
    expect(checkRelativePath('a/C:x', 'win32')).toBe('a/C:x');
  });

  it('accepts any path of ordinary segments and refuses any with a ".." segment (property)', () => {
    const segment = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes('/') && !s.includes('\0') && s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.nat(5), (segments, at) => {
        expect(checkRelativePath(segments.join('/'))).toBe(segments.join('/'));
        const withDots = [...segments];
        withDots.splice(at % (segments.length + 1), 0, '..');
        expect(() => checkRelativePath(withDots.join('/'))).toThrow();
        expect(toNativeId(segments.join('/'))).toBe(toNativeId(segments.join('/')).normalize('NFC'));
      }),
    );
  });

  it('tells inside from outside the root, whatever the names look like', () => {
    expect(isInsideRoot('/srv/docs', '/srv/docs')).toBe(true);
    expect(isInsideRoot('/srv/docs', '/srv/docs/a/b.html')).toBe(true);
    expect(isInsideRoot('/srv/docs', '/srv/docs/..hidden')).toBe(true);
    expect(isInsideRoot('/srv/docs', '/srv/docs-other/x')).toBe(false);
    expect(isInsideRoot('/srv/docs', '/srv')).toBe(false);
    expect(isInsideRoot('/srv/docs', '/etc/passwd')).toBe(false);
  });

  it('reserves names starting with _ or .', () => {
    expect(['_access.yaml', '.git', '_drafts', '.DS_Store'].every(isReservedName)).toBe(true);
    expect(['a_b.html', 'x.txt', 'café'].some(isReservedName)).toBe(false);
  });

  it('builds external URLs under the base URL (percent-encoded) or as file:// URLs', () => {
    expect(externalUrlOf('https://intranet.example/kb', 'public/café ☕.html', '/x')).toBe('https://intranet.example/kb/public/caf%C3%A9%20%E2%98%95.html');
    expect(externalUrlOf(undefined, 'a b.txt', '/srv/docs/a b.txt')).toBe('file:///srv/docs/a%20b.txt');
  });

  it('versions files by mtime and size', () => {
    expect(fileVersion({ mtimeMs: 1714550400123.5, size: 42 })).toBe('1714550400123.5:42');
  });
});

describe('file types and content', () => {
  it.each([
    ['a.html', 'text/html', 'html'],
    ['a.HTM', 'text/html', 'html'],
    ['a.md', 'text/html', 'markdown'],
    ['a.pdf', 'application/pdf', 'binary'],
    ['a.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'binary'],
    ['a.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'binary'],
    ['a.txt', 'text/plain', 'binary'],
  ])('maps %s to %s (%s)', (name, mimeType, kind) => {
    expect(fileTypeOf(name)).toEqual({ mimeType, kind });
  });

  it('has no type for anything else, and counts it by extension', () => {
    expect(['a.csv', 'a.doc', 'a.xlsx', 'noext', 'a.html.bak'].map(fileTypeOf)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(['a.CSV', 'noext', 'x.tar.gz'].map(extensionOf)).toEqual(['.csv', '(none)', '.gz']);
  });

  it('renders Markdown to a titled HTML document and escapes raw HTML in it', () => {
    const html = renderMarkdown(
      '# Hello & welcome\n\nText with <script>alert(1)</script> and <b onclick="x()">bold</b>.\n\n[link](javascript:alert(1))\n',
      'fallback',
    );
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<title>Hello &amp; welcome</title>');
    expect(html).toContain('<h1>Hello &amp; welcome</h1>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<b |href="javascript:/i);
    expect(htmlTitle(renderMarkdown('no heading', 'The <file>'))).toBe('The <file>');
    expect(renderMarkdown('no heading', 'The <file>')).toContain('<title>The &lt;file&gt;</title>');
  });

  it('escapes the five HTML metacharacters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('htmlTitle prefers <title>, falls back to <h1>, decodes entities, else undefined', () => {
    expect(htmlTitle('<title> Tea &amp; Cake &#x2615; </title><h1>Other</h1>')).toBe('Tea & Cake \u2615');
    expect(htmlTitle('<title></title><h1 class="x">First <em>heading</em></h1><h1>Second</h1>')).toBe('First heading');
    expect(htmlTitle('<TITLE>T</TITLE>')).toBe('T');
    expect(htmlTitle('<p>none</p>')).toBeUndefined();
  });

  it('titles other files by their name without extension, NFC', () => {
    expect(baseTitle('cafe\u0301.report.pdf')).toBe('caf\u00e9.report');
    expect(stripBom('\ufeff<p>x</p>')).toBe('<p>x</p>');
  });
});

describe('the directory file', () => {
  it('reads users and groups into sorted records with direct members only', () => {
    expect(directory.users).toEqual([
      { nativeId: 'ana', email: 'ana@example.com', fullName: 'Ana', active: true },
      { nativeId: 'bo', email: 'bo@example.com', fullName: 'Bo', active: false },
    ]);
    expect(directory.groups).toEqual([
      { nativeId: 'core', name: 'Core', members: [{ type: 'USER', nativeId: 'bo' }] },
      {
        nativeId: 'eng',
        name: 'Engineering',
        members: [
          { type: 'GROUP', nativeId: 'core' },
          { type: 'USER', nativeId: 'ana' },
        ],
      },
    ]);
  });

  it('reads JSON by extension', () => {
    const json = parseDirectory('{"users":[{"id":"a","email":"a@x.io","full_name":"A","active":true}]}', '/d/people.json');
    expect(json.users.map((u) => u.nativeId)).toEqual(['a']);
    expect(json.groups).toEqual([]);
  });

  it.each([
    ['an unknown member', 'groups:\n  - { id: g, name: G, members: [{ user: ghost }] }\n', /people\.yaml: group "g" has unknown user member "ghost"/],
    ['a bad email', 'users:\n  - { id: a, email: nope, full_name: A, active: true }\n', /people\.yaml: invalid content/],
    [
      'a duplicate id',
      'users:\n  - { id: a, email: a@x.io, full_name: A, active: true }\n  - { id: a, email: b@x.io, full_name: B, active: true }\n',
      /duplicate user id "a"/,
    ],
    [
      'a member listed twice',
      'users:\n  - { id: a, email: a@x.io, full_name: A, active: true }\ngroups:\n  - { id: g, name: G, members: [{ user: a }, { user: a }] }\n',
      /lists a member twice/,
    ],
    ['malformed YAML', 'users: [\n', /people\.yaml: cannot parse/],
    ['an unknown key', 'people: []\n', /invalid content/],
  ])('refuses %s, naming the file', (_label, text, problem) => {
    expect(() => parseDirectory(text, '/d/people.yaml')).toThrow(DirectoryFileError);
    expect(() => parseDirectory(text, '/d/people.yaml')).toThrow(problem);
  });
});

describe('access sidecars', () => {
  it.each([
    ['malformed YAML', 'groups: [eng\n', /cannot parse/],
    ['malformed JSON', '{"users": [', /cannot parse/],
    ['an unknown key', 'group: [eng]\n', /invalid content/],
    ['public together with principals', 'public: true\nusers: [ana]\n', /cannot be combined/],
    ['an empty document', '', /invalid content/],
    ['an override key with a path', 'files:\n  ../secret.txt: { public: true }\n', /no path/],
    ['an override key with a folder', 'files:\n  sub/x.txt: { public: true }\n', /no path/],
  ])('refuses a sidecar with %s, naming the file', (label, text, problem) => {
    const file = label.includes('JSON') ? '/corpus/team/_access.json' : '/corpus/team/_access.yaml';
    expect(() => parseSidecar(text, file)).toThrow(AccessRuleError);
    expect(() => parseSidecar(text, file)).toThrow(file);
    expect(() => parseSidecar(text, file)).toThrow(problem);
  });

  it('denies by default, maps public to EVERYONE, and lists named principals (users, then groups)', () => {
    expect(resolveFileAccess(NO_SIDECAR, 'x.txt', directory)).toEqual({ ok: true, access: [], principals: [], uncovered: true });
    expect(resolveFileAccess(folder('public: true\n'), 'x.txt', directory)).toEqual({ ok: true, access: [EVERYONE], principals: [] });
    expect(resolveFileAccess(folder('{}\n'), 'x.txt', directory)).toMatchObject({ ok: true, access: [] });
    expect(resolveFileAccess(folder('groups: [eng, core, eng]\nusers: [bo]\n'), 'x.txt', directory)).toEqual({
      ok: true,
      access: [
        { type: 'USER', nativeId: 'bo' },
        { type: 'GROUP', nativeId: 'core' },
        { type: 'GROUP', nativeId: 'eng' },
      ],
      principals: ['GROUP:core', 'GROUP:eng', 'USER:bo'],
    });
  });

  it('applies a per-file override to that file only, matching names whatever their normalisation, and not below', () => {
    const rule = folder('public: true\nfiles:\n  "cafe\u0301.txt": { users: [ana] }\n');
    expect(resolveFileAccess(rule, 'caf\u00e9.txt', directory)).toMatchObject({ ok: true, access: [{ type: 'USER', nativeId: 'ana' }] });
    expect(resolveFileAccess(rule, 'other.txt', directory)).toMatchObject({ ok: true, access: [EVERYONE] });
    expect(resolveFileAccess(inheritedRule(rule), 'caf\u00e9.txt', directory)).toMatchObject({ ok: true, access: [EVERYONE] });
  });

  it('makes an unknown user or group a failure of the files the rule applies to, naming the sidecar', () => {
    const rule = folder('groups: [eng]\nfiles:\n  pay.docx: { users: [zed], groups: [sales] }\n');
    expect(resolveFileAccess(rule, 'other.html', directory)).toMatchObject({ ok: true });
    const result = resolveFileAccess(rule, 'pay.docx', directory);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(AccessRuleError);
    expect(result.error.message).toMatch(/\/corpus\/team\/_access\.yaml: unknown user "zed", group "sales"/);
    expect(result.principals).toEqual(['GROUP:sales', 'USER:zed']);
    expect(result.accessAtMost).toEqual([]);
  });

  it('hands on what a rule naming someone unknown still grants for certain: its known principals', () => {
    const result = resolveFileAccess(folder('users: [ana, zed]\ngroups: [eng, sales]\n'), 'x.html', directory);
    expect(result).toMatchObject({
      ok: false,
      accessAtMost: [
        { type: 'USER', nativeId: 'ana' },
        { type: 'GROUP', nativeId: 'eng' },
      ],
    });
  });

  it('fails every file of a broken folder rule, and hands the breakage down to subfolders', () => {
    const broken: FolderRule = { kind: 'broken', sidecar: '/s', error: new AccessRuleError('/s: bad') };
    expect(resolveFileAccess(broken, 'x', directory)).toMatchObject({ ok: false, error: broken.error, accessAtMost: [] });
    expect(inheritedRule(broken)).toBe(broken);
  });

  it('refuses an override for a file that is not in the folder', () => {
    const sidecar = parseSidecar('public: true\nfiles:\n  nope.txt: { users: [ana] }\n', '/c/_access.yaml');
    expect(() => checkOverrides(sidecar, '/c/_access.yaml', new Set(['yes.txt']))).toThrow(
      /\/c\/_access\.yaml: "files" names "nope\.txt", which is not a file in that folder/,
    );
    expect(() => checkOverrides(sidecar, '/c/_access.yaml', new Set(['nope.txt']))).not.toThrow();
  });
});
