import { FullRunRequired } from '../../../src/adapters/source-error';
import type { FilesystemCheckpoint } from '../../../src/adapters/filesystem/filesystem-checkpoint';
import { filesToRead, goneFiles, needsSync, newTreeScan, noteFolder, scanBaseline, type TreeScan } from '../../../src/adapters/filesystem/filesystem-scan';
import type { TreeEntry, TreeFile, TreeFolder } from '../../../src/adapters/filesystem/filesystem-tree';

/** The incremental decisions of one walk, each against a checkpoint written by hand. */

const checkpoint = (over: Partial<FilesystemCheckpoint> = {}): FilesystemCheckpoint => ({
  scannedAt: '2026-01-01T00:00:00.000Z',
  files: {},
  sidecars: {},
  failed: [],
  directory: { sha256: 'x', users: [], groups: [] },
  ...over,
});

const file = (nativeId: string, version: string, principals: string[] = ['GROUP:staff'], mtimeMs = 1_000): TreeFile => {
  const folderPath = nativeId.includes('/') ? nativeId.slice(0, nativeId.lastIndexOf('/')) : '';
  const name = nativeId.slice(nativeId.lastIndexOf('/') + 1);
  return {
    kind: 'file',
    nativeId,
    relativePath: nativeId,
    absolutePath: `/corpus/${nativeId}`,
    fileName: name,
    folder: { path: folderPath, name: folderPath || 'corpus' },
    mimeType: 'text/html',
    contentKind: 'html',
    size: 10,
    mtimeMs,
    version,
    identity: { dev: 1, ino: 1 },
    access: { ok: true, access: [], principals },
  };
};

const folder = (path: string, sidecars: Record<string, string> = {}): TreeFolder => ({ kind: 'folder', path, sidecars: new Map(Object.entries(sidecars)) });

/** Notes each folder in walk order (parents first), as the walk reports them. */
const walkFolders = (scan: TreeScan, base: ReturnType<typeof scanBaseline> | undefined, folders: TreeFolder[]): TreeScan => {
  for (const f of folders) noteFolder(scan, base, f);
  return scan;
};

describe('needsSync', () => {
  const before = checkpoint({ files: { 'a.html': '1:10', 'team/b.html': '1:10' }, failed: ['team/b.html'] });

  it('reads every file on a full run', () => {
    expect(needsSync(newTreeScan(), undefined, file('a.html', '1:10'))).toBe(true);
  });

  it('skips an unchanged file and reads a new, changed or previously failed one', () => {
    const base = scanBaseline(before, new Set());
    const scan = walkFolders(newTreeScan(), base, [folder(''), folder('team')]);
    expect(needsSync(scan, base, file('a.html', '1:10'))).toBe(false);
    expect(needsSync(scan, base, file('a.html', '2:10'))).toBe(true);
    expect(needsSync(scan, base, file('new.html', '1:10'))).toBe(true);
    expect(needsSync(scan, base, file('team/b.html', '1:10'))).toBe(true);
  });

  it('reads a file given to a principal that appeared or disappeared, and only that one', () => {
    const base = scanBaseline(before, new Set(['USER:ann']));
    const scan = walkFolders(newTreeScan(), base, [folder('')]);
    expect(needsSync(scan, base, file('a.html', '1:10', ['GROUP:staff', 'USER:ann']))).toBe(true);
    expect(needsSync(scan, base, file('a.html', '1:10', ['GROUP:staff', 'USER:bob']))).toBe(false);
  });
});

describe('noteFolder: which folders may have a new rule', () => {
  const before = checkpoint({ sidecars: { 'team/_access.yaml': 'h1', 'team/own/_access.yaml': 'h2' } });
  const base = scanBaseline(before, new Set());

  it('flags nothing when every sidecar hashes the same', () => {
    const scan = walkFolders(newTreeScan(), base, [
      folder(''),
      folder('team', { 'team/_access.yaml': 'h1' }),
      folder('team/sub'),
      folder('team/own', { 'team/own/_access.yaml': 'h2' }),
    ]);
    expect([...scan.ruleChanged]).toEqual([
      ['', false],
      ['team', false],
      ['team/sub', false],
      ['team/own', false],
    ]);
    expect(Object.fromEntries(scan.sidecars)).toEqual(before.sidecars);
  });

  it('passes a changed sidecar down to folders without one, not to a folder with its own', () => {
    const scan = walkFolders(newTreeScan(), base, [
      folder(''),
      folder('team', { 'team/_access.yaml': 'h9' }),
      folder('team/sub'),
      folder('team/sub/deep'),
      folder('team/own', { 'team/own/_access.yaml': 'h2' }),
      folder('other'),
    ]);
    expect(Object.fromEntries(scan.ruleChanged)).toEqual({ '': false, team: true, 'team/sub': true, 'team/sub/deep': true, 'team/own': false, other: false });
    expect(needsSync(scan, base, file('team/sub/deep/x.html', '1:1'))).toBe(true);
  });

  it('flags a folder whose sidecar was removed or added', () => {
    const scan = walkFolders(newTreeScan(), base, [
      folder(''),
      folder('team'),
      folder('team/own', { 'team/own/_access.yaml': 'h2' }),
      folder('fresh', { 'fresh/_access.yaml': 'h3' }),
    ]);
    expect(Object.fromEntries(scan.ruleChanged)).toEqual({ '': false, team: true, 'team/own': false, fresh: true });
  });
});

describe('filesToRead', () => {
  it('records every file (racy ones marked) and passes on only those that need reading', async () => {
    const base = scanBaseline(checkpoint({ files: { 'a.html': '1:10', 'b.html': '1:10' } }), new Set());
    async function* tree(): AsyncGenerator<TreeEntry> {
      yield folder('');
      yield file('a.html', '1:10', [], 4_999);
      yield file('b.html', '1:10', [], 5_000);
      yield file('c.html', '1:10', [], 1);
    }
    const scan = newTreeScan();
    const read: string[] = [];
    for await (const f of filesToRead(tree(), scan, base, 5_000, new AbortController().signal)) read.push(f.nativeId);
    expect(read).toEqual(['c.html']);
    expect(Object.fromEntries(scan.files)).toEqual({ 'a.html': '1:10', 'b.html': 'racy:1:10', 'c.html': '1:10' });
  });
});

describe('goneFiles', () => {
  const files = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(2, '0')}.html`, '1:1']));
  const found = (ids: string[]): TreeScan => ({ ...newTreeScan(), files: new Map(ids.map((id) => [id, '1:1'])) });

  it('lists the files not found again, in code-unit order', () => {
    const base = scanBaseline(checkpoint({ files: { 'b.html': '1', 'a.html': '1', 'Z.html': '1' } }), new Set());
    expect(goneFiles(base, found(['a.html']), '/corpus')).toEqual(['Z.html', 'b.html']);
  });

  it('expires the checkpoint when more than half of ten or more files are gone, and only then', () => {
    const ten = scanBaseline(checkpoint({ files: files(10) }), new Set());
    const keep = (n: number): TreeScan => found(Object.keys(files(10)).slice(0, n));
    expect(goneFiles(ten, keep(5), '/corpus')).toHaveLength(5);
    expect(() => goneFiles(ten, keep(4), '/corpus')).toThrow(FullRunRequired);
    expect(() => goneFiles(ten, keep(4), '/corpus')).toThrow('6 of 10 files disappeared from /corpus');
    const nine = scanBaseline(checkpoint({ files: files(9) }), new Set());
    expect(goneFiles(nine, found([]), '/corpus')).toHaveLength(9);
  });
});
