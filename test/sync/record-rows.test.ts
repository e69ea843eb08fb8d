import type { FileRecord } from '../../src/adapters/adapter';
import type { BlobStore } from '../../src/blobs/blob-store';
import { fileWireJson } from '../../src/wire/file-wire-json';
import type { FileState } from '../../src/staging/write-path/sync-store';
import { decideFile } from '../../src/sync/record-rows';

const AT = '2026-11-23T12:00:00.000Z';

const html: FileRecord = {
  nativeId: 'docs/plan.html',
  name: 'Plan "Q3" — ünïcode',
  externalUrl: 'https://example.com/docs/plan.html',
  mimeType: 'text/html',
  access: [{ type: 'USER', nativeId: 'u2' }, { type: 'GROUP', nativeId: 'g1' }, { type: 'EVERYONE' }, { type: 'USER', nativeId: 'u1', source: 'other' }],
  parent: { nativeId: 'docs', name: 'docs', path: '/docs' },
  createdAt: '2026-01-02T03:04:05.000Z',
  createdBy: 'alice@example.com',
  modifiedBy: 'bob@example.com',
  customAttributes: { zeta: 'z', alpha: 'a' },
  content: { kind: 'html', html: '<html><head><title>Plan</title></head><body><p>ünïcode ✓</p></body></html>' },
};

const noBlobs = {} as BlobStore;

/**
 * The stored hashes decide whether a file changed. If what they are computed from changed between
 * versions, the first sync after an upgrade would re-modify every file (and the platform would
 * re-crawl them all), so their values are pinned here, as computed by the version that introduced
 * them; rows stored with the first content-hash formula (unprefixed) must still be recognised.
 */
const FIRST_FORMULA = {
  html: '7379081d0cced559c139184fed23257ef7508853618825b35019f72e014ea40a',
  binary: 'f7be9d33e64f4a6c53cc1b9caa87a553cc06bf012dbaa6d559d397d1233b47f3',
};
describe('decideFile', () => {
  it('hashes content and access exactly as earlier versions stored them', async () => {
    const decision = await decideFile('fs', html, undefined, noBlobs, AT);
    if (decision.kind !== 'added') throw new Error(`expected added, got ${decision.kind}`);
    expect(decision.row).toMatchObject({
      sha256: '71fdbc012809767ea75db71cdf611dd316529a88375f3a779298b7560f0c15f4',
      sha1: 'b02e71ff684a692adde574d8e9bfc83140df1a6b',
      size: 78,
      content_hash: 'v2:63516eaee6b7aa3c72530b983ac9ad06a6707cf145b97ad11f9850550276e056',
      permissions_hash: '4281a78f0d821002c92efb8fb118dbd92cbdee1d9129711db559cbf241acfe24',
    });
    expect(decision.permissions).toEqual([
      { type: 'GROUP', id: '*' },
      { type: 'GROUP', id: 'fs:g1' },
      { type: 'USER', id: 'fs:u2' },
      { type: 'USER', id: 'other:u1' },
    ]);
  });

  it('writes every staged column, and list JSON rebuilt from the row itself', async () => {
    const decision = await decideFile('fs', html, undefined, noBlobs, AT);
    if (decision.kind !== 'added') throw new Error(`expected added, got ${decision.kind}`);
    const { row } = decision;
    expect(Object.keys(row).sort()).toEqual(
      [
        'blob_key',
        'body_html',
        'content_hash',
        'created_at',
        'created_by',
        'custom_attributes',
        'deleted_at',
        'external_url',
        'id',
        'mime_type',
        'modified_at',
        'modified_by',
        'name',
        'native_id',
        'parent_id',
        'parent_name',
        'parent_path',
        'permissions_hash',
        'permissions_modified_at',
        'seen_run',
        'sha1',
        'sha256',
        'size',
        'source',
        'source_version',
        'status',
        'wire_json',
      ].sort(),
    );
    expect(Object.values(row)).not.toContain(undefined);
    // The seen mark is the applying run's: SyncStore.apply sets it.
    expect(row).toMatchObject({
      id: 'fs:docs/plan.html',
      native_id: 'docs/plan.html',
      source: 'fs',
      modified_at: AT,
      permissions_modified_at: AT,
      parent_id: 'fs:docs',
      blob_key: null,
      seen_run: null,
    });
    expect(row.custom_attributes).toBe('{"alpha":"a","zeta":"z"}');
    expect(row.wire_json).toBe(fileWireJson(row));
    expect(JSON.parse(row.wire_json ?? '')).toMatchObject({
      id: 'fs:docs/plan.html',
      last_modified_datetime: AT,
      custom_attributes: { alpha: 'a', zeta: 'z' },
      parent_info: { id: 'fs:docs', name: 'docs', path: '/docs' },
    });
  });

  it('keeps a stored binary when its version matches and the blob is still there, with the hashes earlier versions stored', async () => {
    const binary: FileRecord = {
      nativeId: 'docs/plan.pdf',
      name: 'Plan',
      externalUrl: 'https://example.com/docs/plan.pdf',
      mimeType: 'application/pdf',
      access: [],
      content: { kind: 'binary', version: '1700000000000:5', open: () => Promise.reject(new Error('must not be read')) },
    };
    const state: FileState = {
      id: 'fs:docs/plan.pdf',
      status: 'active',
      content_hash: 'stale',
      sha256: 'e'.repeat(64),
      sha1: 'f'.repeat(40),
      size: 5,
      blob_key: 'e'.repeat(64),
      modified_at: '2026-11-01T00:00:00.000Z',
      permissions_modified_at: '2026-11-01T00:00:00.000Z',
      source_version: '1700000000000:5',
      permissions_hash: 'stale',
    };
    const blobs = { stat: () => Promise.resolve({ size: 5 }) } as unknown as BlobStore;
    const decision = await decideFile('fs', binary, state, blobs, AT);
    if (decision.kind !== 'changed') throw new Error(`expected changed, got ${decision.kind}`);
    expect(decision.row).toMatchObject({
      blob_key: 'e'.repeat(64),
      sha1: 'f'.repeat(40),
      size: 5,
      body_html: null,
      content_hash: 'v2:d5ea565b92945fd089f680ce7b5e48aaadcb7654695aa9ac586cb4cbfda4d0b1',
      permissions_hash: '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
    });
    // Stored again with the same hashes, or with the first formula's: nothing to write.
    const again = await decideFile(
      'fs',
      binary,
      { ...state, content_hash: decision.row.content_hash, permissions_hash: decision.row.permissions_hash },
      blobs,
      AT,
    );
    expect(again).toEqual({ kind: 'unchanged' });
    const first = await decideFile('fs', binary, { ...state, content_hash: FIRST_FORMULA.binary, permissions_hash: decision.row.permissions_hash }, blobs, AT);
    expect(first).toEqual({ kind: 'unchanged' });
  });

  it('recognises a row stored with the first content-hash formula: unchanged stays unchanged, a change is written with a v2 hash', async () => {
    const added = await decideFile('fs', html, undefined, noBlobs, AT);
    if (added.kind !== 'added') throw new Error(`expected added, got ${added.kind}`);
    const stored: FileState = { ...added.row, content_hash: FIRST_FORMULA.html };
    expect(await decideFile('fs', html, stored, noBlobs, AT)).toEqual({ kind: 'unchanged' });
    // Access changed, content not: only the access list is written.
    expect(await decideFile('fs', { ...html, access: [] }, stored, noBlobs, AT)).toMatchObject({ kind: 'permissions', permissions: [] });
    // Content changed: the row is written, with the current formula.
    const edited = await decideFile('fs', { ...html, content: { kind: 'html', html: '<p>edited</p>' } }, stored, noBlobs, AT);
    expect(edited).toMatchObject({ kind: 'changed', row: { content_hash: expect.stringMatching(/^v2:[0-9a-f]{64}$/) } });
    // An unprefixed hash that is neither formula's (corrupt, or from another tool) means changed.
    expect(await decideFile('fs', html, { ...stored, content_hash: 'f'.repeat(64) }, noBlobs, AT)).toMatchObject({ kind: 'changed' });
  });
  describe('lazy inline HTML', () => {
    const PAGE = '<html><head><title>Plan</title></head><body><p>ünïcode ✓</p></body></html>';
    /** A lazy version of `html` that counts its loads. */
    const lazy = (version: string | undefined, page = PAGE) => {
      const loads = { n: 0 };
      const record: FileRecord = { ...html, content: { kind: 'html', ...(version !== undefined ? { version } : {}), load: async () => (loads.n++, page) } };
      return { record, loads };
    };

    it('is loaded when new, and hashed and stored exactly as the same HTML at hand, its version with it', async () => {
      const { record, loads } = lazy('r1');
      const decision = await decideFile('fs', record, undefined, noBlobs, AT);
      const inline = await decideFile('fs', html, undefined, noBlobs, AT);
      if (decision.kind !== 'added' || inline.kind !== 'added') throw new Error('expected added');
      expect(loads.n).toBe(1);
      expect(decision.row).toEqual({ ...inline.row, source_version: 'r1' });
    });

    it('is not loaded while its version is the staged one: access still changes; a new version, or none, loads it', async () => {
      const added = await decideFile('fs', lazy('r1').record, undefined, noBlobs, AT);
      if (added.kind !== 'added') throw new Error('expected added');
      const stored: FileState = added.row;
      const same = lazy('r1', 'never read');
      expect(await decideFile('fs', same.record, stored, noBlobs, AT)).toEqual({ kind: 'unchanged' });
      expect(await decideFile('fs', { ...same.record, access: [] }, stored, noBlobs, AT)).toMatchObject({ kind: 'permissions', permissions: [] });
      expect(same.loads.n).toBe(0);
      const edited = lazy('r2', '<p>edited</p>');
      expect(await decideFile('fs', edited.record, stored, noBlobs, AT)).toMatchObject({
        kind: 'changed',
        row: { body_html: '<p>edited</p>', source_version: 'r2' },
      });
      const unversioned = lazy(undefined);
      expect(await decideFile('fs', unversioned.record, stored, noBlobs, AT)).toEqual({ kind: 'unchanged' });
      expect([edited.loads.n, unversioned.loads.n]).toEqual([1, 1]);
    });

    it('keeps a new version whose content turned out the same, so it is not loaded again next time; inline HTML keeps its version too', async () => {
      const added = await decideFile('fs', lazy('r1').record, undefined, noBlobs, AT);
      if (added.kind !== 'added') throw new Error('expected added');
      expect(await decideFile('fs', lazy('r2').record, added.row, noBlobs, AT)).toEqual({ kind: 'unchanged', version: 'r2' });
      expect(await decideFile('fs', { ...lazy('r2').record, access: [] }, added.row, noBlobs, AT)).toMatchObject({ kind: 'permissions', version: 'r2' });
      const inline = await decideFile('fs', { ...html, content: { kind: 'html', html: PAGE, version: 'v1' } }, undefined, noBlobs, AT);
      expect(inline).toMatchObject({ kind: 'added', row: { source_version: 'v1' } });
    });

    it('keeps the staged body when only metadata changed, reading it from staging, not the source; loads it when staging has none', async () => {
      const added = await decideFile('fs', lazy('r1').record, undefined, noBlobs, AT);
      if (added.kind !== 'added') throw new Error('expected added');
      const renamed = lazy('r1', 'never read');
      const staged: string[] = [];
      const decision = await decideFile('fs', { ...renamed.record, name: 'Renamed' }, added.row, noBlobs, AT, async (id) => (staged.push(id), PAGE));
      expect(decision).toMatchObject({ kind: 'changed', row: { name: 'Renamed', body_html: PAGE, sha256: added.row.sha256, source_version: 'r1' } });
      expect([renamed.loads.n, staged]).toEqual([0, ['fs:docs/plan.html']]);
      const lost = lazy('r1');
      expect(await decideFile('fs', { ...lost.record, name: 'Renamed' }, added.row, noBlobs, AT, async () => null)).toMatchObject({
        kind: 'changed',
        row: { body_html: PAGE },
      });
      expect(lost.loads.n).toBe(1);
    });
  });
});
