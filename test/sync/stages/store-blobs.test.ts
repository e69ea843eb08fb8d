import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FileRecord } from '../../../src/adapters/adapter';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { BLOB_WRITES, storeBlobs } from '../../../src/sync/stages/store-blobs';

const stamp = '2026-05-01T00:00:00.000Z';

/** Binary files whose reads wait until released, counting how many are open at once. */
function slowFiles(count: number) {
  const gate = { open: 0, peak: 0, opened: 0, release: () => {} };
  let released!: () => void;
  const releasedAll = new Promise<void>((resolve) => (released = resolve));
  gate.release = released;
  const files = new Map<string, FileRecord>();
  for (let i = 0; i < count; i++) {
    files.set(`src:f${i}`, {
      nativeId: `f${i}`,
      name: `f${i}.pdf`,
      externalUrl: `https://src.example/f${i}`,
      mimeType: 'application/pdf',
      access: [{ type: 'EVERYONE' }],
      content: {
        kind: 'binary',
        open: async () => {
          gate.opened++;
          gate.open++;
          gate.peak = Math.max(gate.peak, gate.open);
          if (i > 0) await releasedAll;
          gate.open--;
          return Readable.from([Buffer.from(`%PDF ${i}`)]);
        },
      },
    });
  }
  return { files, gate };
}

describe('storeBlobs (stage 3)', () => {
  let dir: string;
  let blobs: FsBlobStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stage-blobs-'));
    blobs = new FsBlobStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`stores at most ${BLOB_WRITES} binaries at once and gives the outcomes in the batch's order`, async () => {
    const { files, gate } = slowFiles(BLOB_WRITES + 8);
    const outcomes = storeBlobs('src', files, new Map(), blobs, stamp);
    const first = outcomes.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The first read is not held: its place went to the next file, and the pool is full again.
    expect(gate.open).toBe(BLOB_WRITES);
    gate.release();
    const ids = [((await first).value as { id: string }).id];
    for await (const outcome of outcomes) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.decision?.kind).toBe('added');
      ids.push(outcome.id);
    }
    expect(ids).toEqual([...files.keys()]);
    expect(gate.peak).toBe(BLOB_WRITES);
    for (const [, record] of files) expect(record.content.kind).toBe('binary');
    expect(
      await blobs.stat(
        ((await storeBlobs('src', new Map([[...files][0]!]), new Map(), blobs, stamp).next()).value as { decision: { row: { blob_key: string } } }).decision.row
          .blob_key,
      ),
    ).toEqual({ size: 6 });
  });

  it('reads no file that had not started once its consumer stops', async () => {
    const { files, gate } = slowFiles(BLOB_WRITES + 8);
    const outcomes = storeBlobs('src', files, new Map(), blobs, stamp);
    expect((await outcomes.next()).value).toMatchObject({ id: 'src:f0', decision: { kind: 'added' } });
    await outcomes.return(undefined);
    const started = gate.opened;
    expect(started).toBeLessThan(files.size);
    gate.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gate.opened).toBe(started);
  });

  it('answers a failed read with its error, in its place, without stopping the others', async () => {
    const files = new Map<string, FileRecord>([
      [
        'src:ok',
        { nativeId: 'ok', name: 'ok', externalUrl: 'https://x.example', mimeType: 'text/html', content: { kind: 'html', html: '<p>ok</p>' }, access: [] },
      ],
      [
        'src:bad',
        {
          nativeId: 'bad',
          name: 'bad.pdf',
          externalUrl: 'https://x.example',
          mimeType: 'application/pdf',
          content: { kind: 'binary', open: () => Promise.reject(new Error('source down')) },
          access: [],
        },
      ],
      [
        'src:ok2',
        { nativeId: 'ok2', name: 'ok2', externalUrl: 'https://x.example', mimeType: 'text/html', content: { kind: 'html', html: '<p>ok</p>' }, access: [] },
      ],
    ]);
    const got = [];
    for await (const o of storeBlobs('src', files, new Map(), blobs, stamp)) got.push([o.id, o.decision?.kind, o.error?.message]);
    expect(got).toEqual([
      ['src:ok', 'added', undefined],
      ['src:bad', undefined, 'source down'],
      ['src:ok2', 'added', undefined],
    ]);
  });
  it(`asks for every lazy page of a batch before any is answered (more than ${BLOB_WRITES}), so an adapter can read them in one query`, async () => {
    const count = BLOB_WRITES * 2 + 1;
    let asked = 0;
    const askedWhenAnswered: number[] = [];
    const files = new Map<string, FileRecord>();
    for (let i = 0; i < count; i++) {
      const load = async () => {
        asked++;
        await new Promise((resolve) => setImmediate(resolve));
        askedWhenAnswered.push(asked);
        return `<p>page ${i}</p>`;
      };
      files.set(`src:p${i}`, {
        nativeId: `p${i}`,
        name: `p${i}`,
        externalUrl: 'https://x.example',
        mimeType: 'text/html',
        content: { kind: 'html', version: 'v1', load },
        access: [],
      });
    }
    const got = [];
    for await (const o of storeBlobs('src', files, new Map(), blobs, stamp))
      got.push(o.decision?.kind === 'added' ? o.decision.row.body_html : o.error?.message);
    expect(Math.min(...askedWhenAnswered)).toBe(count);
    expect(got).toEqual(Array.from({ length: count }, (_, i) => `<p>page ${i}</p>`));
  });
});
