import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import { buildDocx, buildPdf, buildPptx, buildTxt } from '../../src/demo/build-demo-documents';
import { Corpus, CorpusError, CorpusFile, DEMO_CORPUS_DIR, htmlTitle, loadCorpus } from '../../src/demo/load-demo-corpus';

const MIME = {
  html: 'text/html',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  txt: 'text/plain',
};

const DIRECTORY = `
users:
  - { id: ana, email: ana@example.com, full_name: Ana, active: true }
  - { id: bo, email: bo@example.com, full_name: Bo, active: false }
groups:
  - { id: eng, name: Engineering, members: [{ user: ana }, { group: core }] }
  - { id: core, name: Core, members: [{ user: bo }] }
`;

/** Writes a fixture tree from a map of relative path -> content, with DIRECTORY unless told not to. */
function fixture(files: Record<string, string>, withDirectory = !('_directory.yaml' in files)): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-'));
  const all = withDirectory ? { '_directory.yaml': DIRECTORY, ...files } : files;
  for (const [rel, content] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  roots.push(root);
  return root;
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function byId(corpus: Corpus, nativeId: string): CorpusFile {
  const file = corpus.files.find((f) => f.nativeId === nativeId);
  if (!file) throw new Error(`no file ${nativeId} in ${corpus.files.map((f) => f.nativeId).join(', ')}`);
  return file;
}

describe('loadCorpus on fixtures', () => {
  it('inherits a sidecar into subfolders and lets a deeper sidecar replace it', async () => {
    const corpus = await loadCorpus(
      fixture({
        'a/_access.yaml': 'groups: [eng]\n',
        'a/one.txt': 'x',
        'a/b/two.txt': 'x',
        'a/b/c/_access.json': '{"users": ["bo"]}',
        'a/b/c/three.txt': 'x',
        'a/b/c/d/four.txt': 'x',
      }),
    );
    expect(byId(corpus, 'a/one.txt').access).toEqual({ public: false, users: [], groups: ['eng'] });
    expect(byId(corpus, 'a/b/two.txt').access).toEqual({ public: false, users: [], groups: ['eng'] });
    // Replaced, not merged: eng is gone below c/.
    expect(byId(corpus, 'a/b/c/three.txt').access).toEqual({ public: false, users: ['bo'], groups: [] });
    expect(byId(corpus, 'a/b/c/d/four.txt').access).toEqual({ public: false, users: ['bo'], groups: [] });
  });

  it('applies a per-file override only to that file, and not to subfolders', async () => {
    const corpus = await loadCorpus(
      fixture({
        '_access.yaml': 'public: true\nfiles:\n  secret.txt: { users: [ana] }\n',
        'open.txt': 'x',
        'secret.txt': 'x',
        'sub/secret.txt': 'x',
      }),
    );
    expect(byId(corpus, 'open.txt').access).toEqual({ public: true });
    expect(byId(corpus, 'secret.txt').access).toEqual({ public: false, users: ['ana'], groups: [] });
    expect(byId(corpus, 'sub/secret.txt').access).toEqual({ public: true });
  });

  it('denies by default where no sidecar is at or above the folder', async () => {
    const corpus = await loadCorpus(
      fixture({ 'loose.txt': 'x', 'deep/er/loose.txt': 'x', 'open/_access.yaml': 'public: true\n', 'open/ok.txt': 'x' }),
    );
    expect(byId(corpus, 'loose.txt').access).toEqual({ public: false, users: [], groups: [] });
    expect(byId(corpus, 'deep/er/loose.txt').access).toEqual({ public: false, users: [], groups: [] });
    expect(byId(corpus, 'open/ok.txt').access).toEqual({ public: true });
  });

  it('treats an empty rule as an explicit "no one" that replaces a public parent', async () => {
    const corpus = await loadCorpus(
      fixture({ '_access.yaml': 'public: true\n', 'locked/_access.yaml': '{}\n', 'locked/x.txt': 'x' }),
    );
    expect(byId(corpus, 'locked/x.txt').access).toEqual({ public: false, users: [], groups: [] });
  });

  it.each([
    ['an unknown user', 'users: [zed]\n', /unknown user "zed"/],
    ['an unknown group', 'groups: [sales]\n', /unknown group "sales"/],
    ['an unknown user in a file override', 'public: true\nfiles:\n  x.txt: { users: [zed] }\n', /unknown user "zed"/],
    ['malformed YAML', 'groups: [eng\n', /cannot parse/],
    ['an unknown key', 'group: [eng]\n', /invalid content/],
    ['public together with principals', 'public: true\nusers: [ana]\n', /cannot be combined/],
    ['an override for a missing file', 'public: true\nfiles:\n  nope.txt: { users: [ana] }\n', /"nope\.txt"/],
    ['an empty document', '', /invalid content/],
  ])('rejects a sidecar with %s, naming the file', async (_label, sidecar, problem) => {
    const root = fixture({ 'team/_access.yaml': sidecar, 'team/x.txt': 'x' });
    const load = loadCorpus(root);
    await expect(load).rejects.toThrow(CorpusError);
    await expect(load).rejects.toThrow(path.join(root, 'team', '_access.yaml'));
    await expect(load).rejects.toThrow(problem);
  });

  it('rejects malformed JSON sidecars and a folder with both sidecar formats', async () => {
    const json = fixture({ 'a/_access.json': '{"users": [', 'a/x.txt': 'x' });
    await expect(loadCorpus(json)).rejects.toThrow(`${path.join(json, 'a', '_access.json')}: cannot parse`);
    const both = fixture({ 'a/_access.json': '{}', 'a/_access.yaml': '{}' });
    await expect(loadCorpus(both)).rejects.toThrow(/both _access\.yaml and _access\.json/);
  });

  it('rejects a missing or inconsistent directory, naming it', async () => {
    const missing = fixture({ '_access.yaml': 'public: true\n' }, false);
    await expect(loadCorpus(missing)).rejects.toThrow(/_directory\.yaml: is missing/);

    const badMember = fixture({ '_directory.yaml': 'groups:\n  - { id: g, name: G, members: [{ user: ghost }] }\n' });
    await expect(loadCorpus(badMember)).rejects.toThrow(/_directory\.yaml: group "g" has unknown user member "ghost"/);

    const badEmail = fixture({ '_directory.yaml': 'users:\n  - { id: a, email: nope, full_name: A, active: true }\n' });
    await expect(loadCorpus(badEmail)).rejects.toThrow(/_directory\.yaml: invalid content/);

    const duplicate = fixture({
      '_directory.yaml': 'users:\n  - { id: a, email: a@x.io, full_name: A, active: true }\n  - { id: a, email: b@x.io, full_name: B, active: true }\n',
    });
    await expect(loadCorpus(duplicate)).rejects.toThrow(/duplicate user id "a"/);
  });

  it('reads the directory into sorted records with direct members only', async () => {
    const corpus = await loadCorpus(fixture({}));
    expect(corpus.users).toEqual([
      { nativeId: 'ana', email: 'ana@example.com', fullName: 'Ana', active: true },
      { nativeId: 'bo', email: 'bo@example.com', fullName: 'Bo', active: false },
    ]);
    expect(corpus.groups).toEqual([
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

  it('skips unsupported extensions, reserved names and symlinks, and never follows links out', async () => {
    const outside = fixture({ 'secret.txt': 'outside the root' });
    const root = fixture({
      '_access.yaml': 'public: true\n',
      'notes.md': '# not served',
      'noext': 'x',
      '.hidden.txt': 'x',
      '_acess.yaml': 'public: true\n',
      '.git/config.txt': 'x',
      'ok.txt': 'x',
    });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(outside, path.join(root, 'linked-dir'));

    const corpus = await loadCorpus(root);
    expect(corpus.files.map((f) => f.nativeId)).toEqual(['ok.txt']);
    expect(corpus.skipped.map((s) => s.relativePath)).toEqual([
      '.git',
      '.hidden.txt',
      '_acess.yaml',
      'link.txt',
      'linked-dir',
      'noext',
      'notes.md',
    ]);
    const reason = (rel: string): string | undefined => corpus.skipped.find((s) => s.relativePath === rel)?.reason;
    expect(reason('notes.md')).toMatch(/unsupported extension "\.md"/);
    expect(reason('link.txt')).toMatch(/symbolic link/);
    expect(reason('linked-dir')).toMatch(/symbolic link/);
    expect(reason('_acess.yaml')).toMatch(/reserved name/);
  });

  it('refuses a sidecar that is a symlink', async () => {
    const outside = fixture({ 'rule.yaml': 'public: true\n' });
    const root = fixture({ 'a/x.txt': 'x' });
    fs.symlinkSync(path.join(outside, 'rule.yaml'), path.join(root, 'a', '_access.yaml'));
    await expect(loadCorpus(root)).rejects.toThrow(/a\/_access\.yaml: must be a regular file/);
  });

  it('describes each file: ids, titles, MIME type, size, folder', async () => {
    const root = fixture({
      '_access.yaml': 'public: true\n',
      'top.HTML': '<html><head><title> Tea &amp; Cake &#x2615; </title></head><body><h1>Other</h1></body></html>',
      'docs/no-title.htm': '<h1 class="x">First <em>heading</em></h1><h1>Second</h1>',
      'docs/untitled.html': '<p>no headings</p>',
      'docs/plain.txt': 'hello',
    });
    const corpus = await loadCorpus(root);
    expect(corpus.files.map((f) => f.nativeId)).toEqual([
      'docs/no-title.htm',
      'docs/plain.txt',
      'docs/untitled.html',
      'top.HTML',
    ]);
    expect(byId(corpus, 'top.HTML')).toEqual({
      nativeId: 'top.HTML',
      name: 'Tea & Cake \u2615',
      relativePath: 'top.HTML',
      absolutePath: path.join(root, 'top.HTML'),
      mimeType: 'text/html',
      size: fs.statSync(path.join(root, 'top.HTML')).size,
      access: { public: true },
      folder: { path: '', name: 'corpus root' },
    });
    expect(byId(corpus, 'docs/no-title.htm').name).toBe('First heading');
    expect(byId(corpus, 'docs/untitled.html').name).toBe('untitled');
    expect(byId(corpus, 'docs/plain.txt')).toMatchObject({ name: 'plain', mimeType: 'text/plain', size: 5, folder: { path: 'docs', name: 'docs' } });
  });

  it('gives NFC native ids and matches overrides whatever the normalisation of the name', async () => {
    const nfd = 'cafe\u0301.txt';
    const root = fixture({ '_access.yaml': `public: true\nfiles:\n  "caf\u00e9.txt": { users: [ana] }\n`, [nfd]: 'x' });
    const [file] = (await loadCorpus(root)).files;
    expect(file?.nativeId).toBe('caf\u00e9.txt');
    expect(file?.relativePath).toBe(nfd);
    expect(file?.access).toEqual({ public: false, users: ['ana'], groups: [] });
  });

  it('htmlTitle prefers <title>, falls back to <h1>, else undefined', () => {
    expect(htmlTitle('<title></title><h1>H</h1>')).toBe('H');
    expect(htmlTitle('<TITLE>T</TITLE>')).toBe('T');
    expect(htmlTitle('<p>none</p>')).toBeUndefined();
  });

  // PPTX is left out: pptxgenjs does a dynamic import() that jest refuses without
  // --experimental-vm-modules. Its dates are pinned by the same code as DOCX (checked below on the
  // shipped file).
  it.each([
    ['PDF', buildPdf],
    ['DOCX', buildDocx],
  ])('builds the same %s bytes whatever the clock says', async (_kind, build) => {
    const sections = [{ heading: 'Part', paragraphs: ['Hello world.'] }];
    const atClock = async (now: string): Promise<Buffer> => {
      // Only Date is faked: the libraries' own scheduling must keep running.
      jest.useFakeTimers({
        now: new Date(now),
        doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      });
      try {
        return await build('Title', sections);
      } finally {
        jest.useRealTimers();
      }
    };
    expect((await atClock('2001-02-03T04:05:06Z')).equals(await atClock('2033-07-08T09:10:11Z'))).toBe(true);
  });

  it('buildTxt writes plain UTF-8 text with the title and paragraphs', () => {
    const text = buildTxt('Title', [{ heading: 'Part', paragraphs: ['Hello world.'] }]).toString('utf8');
    expect(text).toBe('Title\n=====\n\nPart\n----\n\nHello world.\n');
  });
});

describe('the bundled demo corpus', () => {
  let corpus: Corpus;
  beforeAll(async () => {
    corpus = await loadCorpus(DEMO_CORPUS_DIR);
  });

  it('lives at DEMO_CORPUS_DIR next to this source tree', () => {
    expect(DEMO_CORPUS_DIR).toBe(path.resolve(__dirname, '../../src/demo/corpus'));
    expect(fs.existsSync(path.join(DEMO_CORPUS_DIR, '_directory.yaml'))).toBe(true);
  });

  it('has a directory with an inactive user and the all-staff > engineering > platform-team chain', () => {
    expect(corpus.users.length).toBeGreaterThanOrEqual(6);
    expect(corpus.users.every((u) => u.email.endsWith('@northwind.example'))).toBe(true);
    expect(corpus.users.filter((u) => !u.active).map((u) => u.nativeId)).toEqual(['gus']);
    const members = (id: string) => corpus.groups.find((g) => g.nativeId === id)?.members ?? [];
    expect(members('all-staff')).toContainEqual({ type: 'GROUP', nativeId: 'engineering' });
    expect(members('engineering')).toContainEqual({ type: 'GROUP', nativeId: 'platform-team' });
    expect(members('platform-team')).toContainEqual({ type: 'USER', nativeId: 'ana' });
  });

  it('covers every access pattern the demo promises', () => {
    const access = (id: string) => byId(corpus, id).access;
    expect(corpus.files.some((f) => f.access.public)).toBe(true);
    // all-staff is granted on its own; Ana reaches these only through platform-team -> engineering.
    expect(access('company/expense-policy.html')).toEqual({ public: false, users: [], groups: ['all-staff'] });
    expect(access('engineering/platform/kubernetes-upgrade-plan.html')).toEqual({ public: false, users: [], groups: ['platform-team'] });
    expect(access('hr/parental-leave-policy.html')).toEqual({ public: false, users: [], groups: ['hr'] });
    expect(access('hr/salary-bands-2025.docx')).toEqual({ public: false, users: ['dana'], groups: [] });
    expect(access('executives/board-meeting-notes-2025-q3.html')).toEqual({ public: false, users: [], groups: ['executives'] });
    expect(access('drafts/office-move-proposal.html')).toEqual({ public: false, users: [], groups: [] });
  });

  it('has every MIME type, a non-ASCII file name, and only the README skipped', () => {
    expect(new Set(corpus.files.map((f) => f.mimeType))).toEqual(new Set(Object.values(MIME)));
    expect(corpus.files.some((f) => /[^\x00-\x7f]/.test(f.nativeId))).toBe(true);
    expect(byId(corpus, 'public/caf\u00e9-etiquette.html').name).toBe('Caf\u00e9 & Kitchen Etiquette');
    expect(corpus.skipped).toEqual([{ relativePath: '_README.md', reason: expect.stringMatching(/reserved/) }]);
    expect(corpus.files.length).toBeGreaterThanOrEqual(10);
  });

  it('ships genuine, small binary documents', () => {
    const bytes = (mime: string): Buffer => {
      const file = corpus.files.find((f) => f.mimeType === mime);
      if (!file) throw new Error(`no ${mime}`);
      const data = fs.readFileSync(file.absolutePath);
      expect(data.length).toBe(file.size);
      expect(data.length).toBeLessThan(60 * 1024);
      return data;
    };
    expect(bytes(MIME.pdf).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const docx = bytes(MIME.docx);
    expect(docx.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(docx.includes('word/document.xml')).toBe(true);
    const pptx = bytes(MIME.pptx);
    expect(pptx.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(pptx.includes('ppt/presentation.xml')).toBe(true);
    expect(bytes(MIME.txt).toString('utf8')).toMatch(/^Northwind Labs Holiday Calendar 2025/);
  });

  it('ships documents with pinned dates, so regenerating them leaves the tree unchanged', async () => {
    const shipped = (mime: string): Buffer => fs.readFileSync(corpus.files.find((f) => f.mimeType === mime)?.absolutePath ?? '');
    const pdf = await PDFDocument.load(shipped(MIME.pdf), { updateMetadata: false });
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(2);
    expect(pdf.getTitle()).toBe('Incident Response Runbook');
    expect(pdf.getModificationDate()?.toISOString()).toBe('2025-01-15T09:00:00.000Z');
    for (const mime of [MIME.docx, MIME.pptx]) {
      const zip = await JSZip.loadAsync(shipped(mime));
      const core = await zip.file('docProps/core.xml')?.async('string');
      expect(core).toMatch(/<dcterms:created [^>]*>2025-01-15T09:00:00Z</);
      expect(core).toMatch(/<dcterms:modified [^>]*>2025-01-15T09:00:00Z</);
      const dates = new Set<string>();
      zip.forEach((_name, entry) => dates.add(entry.date.toISOString()));
      expect([...dates]).toEqual(['2025-01-15T09:00:00.000Z']);
    }
  });

  it('has HTML articles that are complete documents with a title and headings', () => {
    for (const file of corpus.files.filter((f) => f.mimeType === MIME.html)) {
      const html = fs.readFileSync(file.absolutePath, 'utf8');
      expect(html).toMatch(/^<!DOCTYPE html>/);
      expect(html).toMatch(/<h1>[^<]+<\/h1>/);
      expect(html).toMatch(/<h2>/);
      expect(file.size).toBeGreaterThanOrEqual(900);
      expect(file.size).toBeLessThanOrEqual(3 * 1024);
    }
  });
});
