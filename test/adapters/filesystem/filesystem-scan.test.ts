import { FullRunRequired } from '../../../src/adapters/source-error';
import type { FilesystemCheckpoint } from '../../../src/adapters/filesystem/filesystem-checkpoint';
import { filesToRead, goneFiles, needsSync, newTreeScan, noteFolder, scanBaseline, type TreeScan } from '../../../src/adapters/filesystem/filesystem-scan';
import type { TreeEntry, TreeFile, TreeFolder } from '../../../src/adapters/filesystem/filesystem-tree';
import { MemoryStagedFiles } from '../../helpers/memory-staged-files';

/** The incremental decisions of one walk, each against a checkpoint and staged versions written by hand. */

const noStaged = new MemoryStagedFiles();

const checkpoint = (over: Partial<FilesystemCheckpoint> = {}): FilesystemCheckpoint => ({
  scannedAt: '2026-01-01T00:00:00.000Z',
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
  const before = checkpoint({ failed: ['team/b.html'] });

  it('skips an unchanged file and reads a new, changed or previously failed one', () => {
    const base = scanBaseline(before, new Set(), noStaged);
    expect(needsSync(base, file('a.html', '1:10'), '1:10', false)).toBe(false);
    expect(needsSync(base, file('a.html', '2:10'), '1:10', false)).toBe(true);
    expect(needsSync(base, file('a.html', '1:10'), 'racy:1:10', false)).toBe(true);
    expect(needsSync(base, file('new.html', '1:10'), undefined, false)).toBe(true);
    expect(needsSync(base, file('old.html', '1:10'), null, false)).toBe(true);
    expect(needsSync(base, file('team/b.html', '1:10'), '1:10', false)).toBe(true);
    expect(needsSync(base, file('a.html', '1:10'), '1:10', true)).toBe(true);
  });

  it('reads a file given to a principal that appeared or disappeared, and only that one', () => {
    const base = scanBaseline(before, new Set(['USER:ann']), noStaged);
    expect(needsSync(base, file('a.html', '1:10', ['GROUP:staff', 'USER:ann']), '1:10', false)).toBe(true);
    expect(needsSync(base, file('a.html', '1:10', ['GROUP:staff', 'USER:bob']), '1:10', false)).toBe(false);
  });
});

describe('noteFolder: which folders may have a new rule', () => {
  const before = checkpoint({ sidecars: { 'team/_access.yaml': 'h1', 'team/own/_access.yaml': 'h2' } });
  const base = scanBaseline(before, new Set(), noStaged);

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
  it('lists every file, passes on only those that need reading, each with the version to stage (racy ones marked)', async () => {
    const staged = new MemoryStagedFiles({ 'a.html': '1:10', 'b.html': '1:10', 'd.html': 'racy:1:10' });
    const base = scanBaseline(checkpoint(), new Set(), staged);
    async function* tree(): AsyncGenerator<TreeEntry> {
      yield folder('');
      yield file('a.html', '1:10', [], 4_999);
      yield file('b.html', '1:10', [], 5_000);
      yield file('c.html', '1:10', [], 1);
      yield file('d.html', '1:10', [], 1);
    }
    const read: string[] = [];
    for await (const f of filesToRead(tree(), newTreeScan(), base, 5_000, new AbortController().signal)) read.push(`${f.nativeId} ${f.version}`);
    expect(read).toEqual(['c.html 1:10', 'd.html 1:10']);
    expect([...staged.listed]).toEqual(['a.html', 'b.html', 'c.html', 'd.html']);
  });

  it('passes on every file on a full run, racy ones marked', async () => {
    async function* tree(): AsyncGenerator<TreeEntry> {
      yield folder('');
      yield file('a.html', '1:10', [], 4_999);
      yield file('b.html', '1:10', [], 5_000);
    }
    const read: string[] = [];
    for await (const f of filesToRead(tree(), newTreeScan(), undefined, 5_000, new AbortController().signal)) read.push(`${f.nativeId} ${f.version}`);
    expect(read).toEqual(['a.html 1:10', 'b.html racy:1:10']);
  });
});

describe('goneFiles', () => {
  const staged = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(2, '0')}.html`, '1:1']));
  const collect = async (files: AsyncIterable<string>): Promise<string[]> => {
    const out: string[] = [];
    for await (const f of files) out.push(f);
    return out;
  };
  /** What a walk that found `found` of the staged files (and listed them) leaves gone. */
  const gone = async (files: Record<string, string>, found: string[], failed: string[] = []): Promise<string[]> => {
    const view = new MemoryStagedFiles(files);
    await view.list(found);
    const scan = newTreeScan();
    for (const id of found) if (failed.includes(id)) scan.foundFailed.add(id);
    return collect(goneFiles(scanBaseline(checkpoint({ failed }), new Set(), view), scan, '/corpus', new AbortController().signal));
  };

  it('lists the staged files not found again, then the failed ones gone', async () => {
    expect(await gone({ 'b.html': '1', 'a.html': '1', 'Z.html': '1' }, ['a.html'], ['never.html', 'a.html'])).toEqual(['Z.html', 'b.html', 'never.html']);
  });

  it('expires the checkpoint when more than half of ten or more files are gone, and only then', async () => {
    const keep = (n: number): string[] => Object.keys(staged(10)).slice(0, n);
    expect(await gone(staged(10), keep(5))).toHaveLength(5);
    await expect(gone(staged(10), keep(4))).rejects.toThrow(FullRunRequired);
    await expect(gone(staged(10), keep(4))).rejects.toThrow('6 of 10 files disappeared from /corpus');
    expect(await gone(staged(9), [])).toHaveLength(9);
  });
});
