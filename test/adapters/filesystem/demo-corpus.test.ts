import fs from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import { EVERYONE, type FileRecord, type SyncEvent } from '../../../src/adapters/adapter';
import { createFilesystemAdapter } from '../../../src/adapters/filesystem';
import { buildDemoDocument, DEMO_DOCUMENTS } from '@content-gateway/kit/src/demo/build-demo-documents';
import { DEMO_CORPUS_DIR } from '../../../src/demo/demo-corpus-dir';
import { DEMO_BASE_URL, DEMO_SOURCE } from '../../../src/demo/seed-demo';
import { bytesOf, collect, context, failuresOf, fileOf, filesOf, htmlOf } from './tree-fixture';

/** The bundled demo corpus, read through the filesystem adapter exactly as `seed-demo` reads it. */
const MIME = {
  html: 'text/html',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  txt: 'text/plain',
};

describe('the bundled demo corpus', () => {
  let events: SyncEvent[];
  let files: FileRecord[];
  const logs: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    events = await collect(createFilesystemAdapter({ root: DEMO_CORPUS_DIR, sourceName: DEMO_SOURCE, baseUrl: DEMO_BASE_URL }).full(context({ logs })));
    files = filesOf(events);
  });
  const users = () => events.flatMap((e) => (e.type === 'user' ? [e.user] : []));
  const members = (id: string) => events.flatMap((e) => (e.type === 'group' && e.group.nativeId === id ? e.group.members : []));
  const accessOf = (id: string) => fileOf(events, id).access;

  it('lives at DEMO_CORPUS_DIR next to this source tree', () => {
    expect(DEMO_CORPUS_DIR).toBe(path.resolve(__dirname, '../../../src/demo/corpus'));
    expect(fs.existsSync(path.join(DEMO_CORPUS_DIR, '_directory.yaml'))).toBe(true);
  });

  it('loads without a single failure', () => {
    expect(failuresOf(events)).toEqual([]);
    expect(events.at(-1)?.type).toBe('checkpoint');
  });

  it('has a directory with an inactive user and the all-staff > engineering > platform-team chain', () => {
    expect(users().length).toBeGreaterThanOrEqual(6);
    expect(users().every((u) => u.email.endsWith('@northwind.example'))).toBe(true);
    expect(
      users()
        .filter((u) => !u.active)
        .map((u) => u.nativeId),
    ).toEqual(['gus']);
    expect(members('all-staff')).toContainEqual({ type: 'GROUP', nativeId: 'engineering' });
    expect(members('engineering')).toContainEqual({ type: 'GROUP', nativeId: 'platform-team' });
    expect(members('platform-team')).toContainEqual({ type: 'USER', nativeId: 'ana' });
  });

  it('covers every access pattern the demo promises', () => {
    expect(files.some((f) => f.access.some((a) => a.type === 'EVERYONE'))).toBe(true);
    // all-staff is granted on its own; Ana reaches these only through platform-team -> engineering.
    expect(accessOf('company/expense-policy.html')).toEqual([{ type: 'GROUP', nativeId: 'all-staff' }]);
    expect(accessOf('engineering/platform/kubernetes-upgrade-plan.html')).toEqual([{ type: 'GROUP', nativeId: 'platform-team' }]);
    expect(accessOf('hr/parental-leave-policy.html')).toEqual([{ type: 'GROUP', nativeId: 'hr' }]);
    expect(accessOf('hr/salary-bands-2025.docx')).toEqual([{ type: 'USER', nativeId: 'dana' }]);
    expect(accessOf('executives/board-meeting-notes-2025-q3.html')).toEqual([{ type: 'GROUP', nativeId: 'executives' }]);
    expect(accessOf('drafts/office-move-proposal.html')).toEqual([]);
    expect(accessOf('public/welcome-to-northwind.html')).toEqual([EVERYONE]);
  });

  it('has every MIME type, Markdown, a non-ASCII file name, and only the README skipped', () => {
    expect(new Set(files.map((f) => f.mimeType))).toEqual(new Set(Object.values(MIME)));
    expect(files.some((f) => f.nativeId.endsWith('.md'))).toBe(true);
    expect(files.some((f) => /[^\x00-\x7f]/.test(f.nativeId))).toBe(true);
    const cafe = fileOf(events, 'public/caf\u00e9-etiquette.html');
    expect(cafe.name).toBe('Caf\u00e9 & Kitchen Etiquette');
    expect(cafe.externalUrl).toBe(`${DEMO_BASE_URL}/public/caf%C3%A9-etiquette.html`);
    expect(logs.find((l) => 'byExtension' in l)).toMatchObject({ skipped: 0, byExtension: {}, ignored: { 'reserved name': 1 } }); // _README.md
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it('ships genuine, small binary documents', async () => {
    const bytes = async (mime: string): Promise<Buffer> => {
      const file = files.find((f) => f.mimeType === mime && f.content.kind === 'binary');
      if (!file) throw new Error(`no ${mime}`);
      const data = await bytesOf(file);
      expect(data.length).toBe(fs.statSync(path.join(DEMO_CORPUS_DIR, file.nativeId)).size);
      expect(data.length).toBeLessThan(60 * 1024);
      return data;
    };
    expect((await bytes(MIME.pdf)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const docx = await bytes(MIME.docx);
    expect(docx.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(docx.includes('word/document.xml')).toBe(true);
    const pptx = await bytes(MIME.pptx);
    expect(pptx.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(pptx.includes('ppt/presentation.xml')).toBe(true);
    expect((await bytes(MIME.txt)).toString('utf8')).toMatch(/^Northwind Labs Holiday Calendar 2025/);
  });

  it('ships documents with pinned dates, so regenerating them leaves the tree unchanged', async () => {
    const shipped = async (mime: string): Promise<Buffer> => {
      const file = files.find((f) => f.mimeType === mime);
      if (!file) throw new Error(`no ${mime}`);
      return bytesOf(file);
    };
    const pdf = await PDFDocument.load(await shipped(MIME.pdf), { updateMetadata: false });
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(2);
    expect(pdf.getTitle()).toBe('Incident Response Runbook');
    expect(pdf.getModificationDate()?.toISOString()).toBe('2025-01-15T09:00:00.000Z');
    for (const mime of [MIME.docx, MIME.pptx]) {
      const zip = await JSZip.loadAsync(await shipped(mime));
      const core = await zip.file('docProps/core.xml')?.async('string');
      expect(core).toMatch(/<dcterms:created [^>]*>2025-01-15T09:00:00Z</);
      expect(core).toMatch(/<dcterms:modified [^>]*>2025-01-15T09:00:00Z</);
      const dates = new Set<string>();
      zip.forEach((_name, entry) => dates.add(entry.date.toISOString()));
      expect([...dates]).toEqual(['2025-01-15T09:00:00.000Z']);
    }
  });

  it('has HTML articles that are complete documents with a title and headings', () => {
    for (const file of files.filter((f) => f.nativeId.endsWith('.html'))) {
      const html = htmlOf(file);
      expect(html).toMatch(/^<!DOCTYPE html>/);
      expect(html).toMatch(/<h1>[^<]+<\/h1>/);
      expect(html).toMatch(/<h2>/);
      expect(Buffer.byteLength(html)).toBeGreaterThanOrEqual(900);
      expect(Buffer.byteLength(html)).toBeLessThanOrEqual(3 * 1024);
    }
  });

  it('renders its Markdown page into a titled document', () => {
    const md = files.find((f) => f.nativeId.endsWith('.md'));
    expect(md?.name).toBe('On-Call Handbook');
    expect(md && htmlOf(md)).toMatch(/<title>On-Call Handbook<\/title>[\s\S]*<h2>Before your week<\/h2>[\s\S]*<ol>/);
  });
});

describe('the demo document script', () => {
  it('regenerates exactly the shipped documents, with the work-management mock builders', async () => {
    for (const doc of DEMO_DOCUMENTS) {
      expect([doc.relativePath, (await buildDemoDocument(doc)).equals(fs.readFileSync(path.join(DEMO_CORPUS_DIR, doc.relativePath)))]).toEqual([
        doc.relativePath,
        true,
      ]);
    }
  });

  it('builds the same bytes whatever the clock says', async () => {
    const atClock = async (now: string): Promise<Buffer[]> => {
      // Only the clock is faked: the builders' zip and PDF writers still need real timers and ticks.
      jest.useFakeTimers({
        now: new Date(now),
        doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask'],
      });
      try {
        expect(new Date().toISOString()).toBe(new Date(now).toISOString());
        return await Promise.all(DEMO_DOCUMENTS.map(buildDemoDocument));
      } finally {
        jest.useRealTimers();
      }
    };
    expect(Buffer.concat(await atClock('2001-02-03T04:05:06Z')).equals(Buffer.concat(await atClock('2033-07-08T09:10:11Z')))).toBe(true);
  });

  it('refuses a document it has no builder for', async () => {
    await expect(buildDemoDocument({ relativePath: 'x/notes.odt', title: 'T', sections: [] })).rejects.toThrow(/no builder for x\/notes.odt/);
  });
});
