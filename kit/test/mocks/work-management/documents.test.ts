import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import { extractText, MIME } from '../../../src/mocks/platform/ingest/extract-text';
import { buildDocument } from '../../../src/mocks/work-management/documents/build-document';
import { buildDocx } from '../../../src/mocks/work-management/documents/build-docx';
import { buildPdf } from '../../../src/mocks/work-management/documents/build-pdf';
import { buildPptx } from '../../../src/mocks/work-management/documents/build-pptx';
import { buildTxt } from '../../../src/mocks/work-management/documents/build-txt';
import type { DocumentContent } from '../../../src/mocks/work-management/documents/document-content';
import { startMock, type RunningMock } from './mock-harness';

const content: DocumentContent = {
  title: 'Quarterly plan (draft) \\ v2',
  author: 'Inês Tavares',
  date: new Date('2025-02-03T10:00:00Z'),
  sections: Array.from({ length: 6 }, (_, i) => ({
    heading: `Section ${i + 1} <&>`,
    paragraphs: Array.from(
      { length: 8 },
      (_, j) => `Paragraph ${j + 1} of section ${i + 1}: the budget is approved for the pilot only, and the full rollout needs a second approval from finance.`,
    ),
  })),
};

/** Cheap XML sanity: balanced tags, no raw ampersands. */
function wellFormed(xml: string): boolean {
  if (/&(?!amp;|lt;|gt;|quot;|apos;)/.test(xml)) return false;
  const stack: string[] = [];
  for (const m of xml.matchAll(/<(\/?)([\w:.-]+)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self) continue;
    if (close) {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0;
}

describe('generated documents are valid and reproducible', () => {
  it('PDF: parses, has pages, metadata with pinned dates, and the same bytes every time', async () => {
    const bytes = await buildPdf(content);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(pdf.getPageCount()).toBeGreaterThan(1);
    expect(pdf.getTitle()).toBe(content.title);
    expect(pdf.getAuthor()).toBe('Inês Tavares');
    expect(pdf.getCreationDate()?.toISOString()).toBe('2025-02-03T10:00:00.000Z');
    expect(pdf.getModificationDate()?.toISOString()).toBe('2025-02-03T10:00:00.000Z');
    expect(pdf.getProducer()).toBe('work-management mock');
    expect((await buildPdf(content)).equals(bytes)).toBe(true);
  });

  it("PDF: text outside the standard fonts' encoding becomes ?, and a word wider than a line is cut to fit the page", async () => {
    const odd: DocumentContent = {
      ...content,
      title: 'Plan Ω 😀 “quoted” — €5',
      sections: [{ heading: 'Long', paragraphs: [`short ${'x'.repeat(120)} tail\tafter\na tab`] }],
    };
    const text = await extractText(MIME.pdf, await buildPdf(odd));
    expect(text).toContain('Plan ? ? “quoted” — €5');
    expect(text).toMatch(/tail\s+after\s+a\s+tab/); // whitespace separates words; it is not drawn as ?
    // All 120 characters are there, over two lines (two runs of x), none clipped at the page edge.
    expect(text).toMatch(/Long\s+short\s+x+\s+x+\s+tail/);
    expect(text.replace(/\s+/g, '')).toContain(`short${'x'.repeat(120)}tail`);
  });

  it('DOCX: a zip with the OpenXML parts, well-formed, with the text', async () => {
    const bytes = await buildDocx(content);
    const zip = await JSZip.loadAsync(bytes);
    expect(Object.keys(zip.files).sort()).toEqual(['[Content_Types].xml', '_rels/.rels', 'docProps/core.xml', 'word/document.xml']);
    const doc = await zip.file('word/document.xml')?.async('string');
    expect(doc && wellFormed(doc)).toBe(true);
    expect(doc).toContain('Section 1 &lt;&amp;&gt;');
    expect(await zip.file('docProps/core.xml')?.async('string')).toContain('<dc:creator>Inês Tavares</dc:creator>');
    expect((await buildDocx(content)).equals(bytes)).toBe(true);
    const dates = new Set<string>();
    zip.forEach((_name, entry) => dates.add(entry.date.toISOString()));
    expect([...dates]).toEqual(['2025-02-03T10:00:00.000Z']);
  });

  it('PPTX: a zip with presentation, master, layout, theme and one slide per section plus a title slide', async () => {
    const bytes = await buildPptx(content);
    const zip = await JSZip.loadAsync(bytes);
    const names = Object.keys(zip.files);
    for (const part of [
      '[Content_Types].xml',
      '_rels/.rels',
      'ppt/presentation.xml',
      'ppt/_rels/presentation.xml.rels',
      'ppt/slideMasters/slideMaster1.xml',
      'ppt/slideLayouts/slideLayout1.xml',
      'ppt/theme/theme1.xml',
    ]) {
      expect(names).toContain(part);
    }
    const slides = names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n));
    expect(slides).toHaveLength(content.sections.length + 1);
    for (const name of names.filter((n) => n.endsWith('.xml') || n.endsWith('.rels'))) {
      expect([name, wellFormed((await zip.file(name)?.async('string')) ?? '')]).toEqual([name, true]);
    }
    const types = (await zip.file('[Content_Types].xml')?.async('string')) ?? '';
    for (const slide of slides) expect(types).toContain(`PartName="/${slide}"`);
    expect(await zip.file('ppt/slides/slide2.xml')?.async('string')).toContain('<a:t>Section 1 &lt;&amp;&gt;</a:t>');
    expect((await buildPptx(content)).equals(bytes)).toBe(true);
  });

  it('TXT: UTF-8 with the title, headings and wrapped paragraphs', () => {
    const text = buildTxt(content).toString('utf8');
    expect(text.startsWith(`${content.title}\n${'='.repeat(content.title.length)}`)).toBe(true);
    expect(text.split('\n').every((l) => l.length <= 78 || !l.includes(' '))).toBe(true);
    expect(text).toContain('Inês Tavares');
  });

  it.each(['pdf', 'docx', 'pptx', 'txt'] as const)(
    "%s: the platform's text extraction reads back the title, every heading and every paragraph",
    async (kind) => {
      const text = (await extractText(MIME[kind], await buildDocument(kind, content))).replace(/\s+/g, ' ');
      for (const expected of [content.title, ...content.sections.flatMap((s) => [s.heading, ...s.paragraphs])])
        expect([kind, text.includes(expected)]).toEqual([kind, true]);
    },
  );
});

describe('attachment downloads over HTTP', () => {
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({ seed: 'docs', size: 'tiny' });
  });
  afterAll(() => m.close());

  it.each(['pdf', 'docx', 'pptx', 'txt'])('%s: bytes are built on download, with type, length and the listed size', async (kind) => {
    const a = [...m.mock.model.indexes.attachments.values()].find((x) => x.kind === kind);
    expect(a).toBeDefined();
    const listed = await m.api(`/attachments?parent=${a?.parent}&opt_fields=name,size,download_url,host`);
    const entry = listed.body.data.find((x: { gid: string }) => x.gid === a?.gid);
    const res = await fetch(entry.download_url);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain({ pdf: 'application/pdf', docx: 'wordprocessingml', pptx: 'presentationml', txt: 'text/plain' }[kind]);
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(entry.size).toBe(bytes.length);
    expect(res.headers.get('content-disposition')).toContain(`filename="${a?.name}"`);
    // The same seed gives the same bytes in another mock.
    const again = await startMock({ seed: 'docs', size: 'tiny' });
    try {
      const url = (await again.api(`/attachments/${a?.gid}`)).body.data.download_url;
      expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(bytes)).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('lists sizes of documents never built before inside batch actions too, each the length of its download', async () => {
    const fresh = await startMock({ seed: 'docs-batch', size: 'tiny' });
    try {
      const files = [...fresh.mock.model.indexes.attachments.values()].filter((a) => a.kind && a.size === null).slice(0, 6);
      expect(files.length).toBeGreaterThan(2);
      const actions = files.map((a) => ({ relative_path: `/attachments/${a.gid}`, method: 'get', options: { fields: ['size', 'download_url'] } }));
      const res = await fresh.api('/batch', { body: { data: { actions } } });
      expect(res.status).toBe(200);
      const results = res.body.data as Array<{ status_code: number; body: { data: { size: unknown; download_url: string } } }>;
      expect(results).toHaveLength(files.length);
      for (const result of results) {
        expect(result.status_code).toBe(200);
        const bytes = Buffer.from(await (await fetch(result.body.data.download_url)).arrayBuffer());
        expect(result.body.data.size).toBe(bytes.length);
      }
    } finally {
      await fresh.close();
    }
  });
});
