/**
 * Attachment bytes: PDF, DOCX, PPTX and TXT documents built on download from (seed, attachment
 * gid), never up front, so a 100,000-task organization costs nothing until a file is fetched.
 * Everything is written by hand with Node built-ins (a minimal PDF writer and a small zip writer
 * for the OpenXML formats): the mock needs no document library at run time, and the output is
 * byte-for-byte reproducible (fixed dates, fixed entry order).
 */
import zlib from 'node:zlib';
import type { Attachment, AttachmentKind, WorkManagementStore } from './model';
import { paragraphsFor } from './names';
import { Random } from './random';

export const MIME_TYPES: Record<AttachmentKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  txt: 'text/plain; charset=utf-8',
};

export interface DocumentSection {
  heading: string;
  paragraphs: string[];
}

export interface DocumentContent {
  title: string;
  author: string;
  date: Date;
  sections: DocumentSection[];
}

const HEADINGS = ['Summary', 'Background', 'Decisions', 'Open questions', 'Timeline', 'Risks', 'Next steps', 'Budget', 'Owners', 'Notes'];

/** The text of an attachment's document, derived from the seed and its gid. */
export function documentContent(store: WorkManagementStore, attachment: Attachment): DocumentContent {
  const rng = new Random(`${store.seed}/doc/${attachment.gid}`);
  const count = rng.int(2, 5);
  const headings = rng.sample(HEADINGS, count);
  const sections = headings.map((heading, i) => ({ heading, paragraphs: paragraphsFor(store.seed, `${attachment.gid}/${i}`, rng.int(1, 3)) }));
  return {
    title: attachment.name.replace(/\.[a-z0-9]+$/i, ''),
    author: (attachment.createdBy ? store.users.get(attachment.createdBy)?.name : undefined) ?? 'Work management',
    date: new Date(attachment.createdAt),
    sections,
  };
}

export function buildDocument(kind: AttachmentKind, content: DocumentContent): Buffer {
  switch (kind) {
    case 'pdf':
      return buildPdf(content);
    case 'docx':
      return buildDocx(content);
    case 'pptx':
      return buildPptx(content);
    case 'txt':
      return buildTxt(content);
  }
}

/** Built documents, most recently used kept; sizes are remembered on the attachment. */
export class DocumentCache {
  private readonly cache = new Map<string, Buffer>();

  constructor(
    private readonly store: WorkManagementStore,
    private readonly max = 64,
  ) {}

  bytes(attachment: Attachment): Buffer {
    if (!attachment.kind) throw new Error(`attachment ${attachment.gid} is a link, not a file`);
    const hit = this.cache.get(attachment.gid);
    if (hit) {
      this.cache.delete(attachment.gid);
      this.cache.set(attachment.gid, hit);
      return hit;
    }
    const bytes = buildDocument(attachment.kind, documentContent(this.store, attachment));
    attachment.size = bytes.length;
    this.cache.set(attachment.gid, bytes);
    if (this.cache.size > this.max) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return bytes;
  }

  /** The byte size (builds the document once if it was never built). */
  size(attachment: Attachment): number | null {
    if (!attachment.kind) return null;
    if (attachment.size === null) this.bytes(attachment);
    return attachment.size;
  }
}

// ------------------------------------------------------------------------------------------------
// TXT
// ------------------------------------------------------------------------------------------------

export function buildTxt(content: DocumentContent): Buffer {
  const lines = [content.title, '='.repeat(content.title.length), '', `${content.author}, ${content.date.toISOString().slice(0, 10)}`];
  for (const section of content.sections) {
    lines.push('', section.heading, '-'.repeat(section.heading.length));
    for (const p of section.paragraphs) lines.push('', ...wrap(p, 78));
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

function wrap(text: string, max: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && next.length > max) {
      out.push(line);
      line = word;
    } else line = next;
  }
  if (line) out.push(line);
  return out;
}

// ------------------------------------------------------------------------------------------------
// PDF: Helvetica (a standard font, no embedding), WinAnsi text, A4 pages, a correct xref table.
// ------------------------------------------------------------------------------------------------

export function buildPdf(content: DocumentContent): Buffer {
  const lines: Array<{ text: string; font: 'F1' | 'F2'; size: number; gap: number }> = [{ text: content.title, font: 'F2', size: 18, gap: 0 }];
  lines.push({ text: `${content.author}, ${content.date.toISOString().slice(0, 10)}`, font: 'F1', size: 10, gap: 6 });
  for (const s of content.sections) {
    lines.push({ text: s.heading, font: 'F2', size: 13, gap: 14 });
    for (const p of s.paragraphs) wrap(p, 92).forEach((l, i) => lines.push({ text: l, font: 'F1', size: 10, gap: i === 0 ? 6 : 0 }));
  }
  const pages: string[] = [];
  let ops: string[] = [];
  let y = 842 - 64;
  for (const line of lines) {
    const height = line.size * 1.4 + line.gap;
    if (y - height < 64 && ops.length > 0) {
      pages.push(ops.join('\n'));
      ops = [];
      y = 842 - 64;
    }
    y -= height;
    ops.push(`BT /${line.font} ${line.size} Tf 64 ${y.toFixed(2)} Td (${pdfString(line.text)}) Tj ET`);
  }
  pages.push(ops.join('\n'));

  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 6 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  objects[4] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>';
  const d = pdfDate(content.date);
  objects[5] = `<< /Title (${pdfString(content.title)}) /Author (${pdfString(content.author)}) /Producer (work-management mock) /CreationDate (${d}) /ModDate (${d}) >>`;
  pages.forEach((stream, i) => {
    const pageId = 6 + i * 2;
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PDF literal string body: Latin-1 only (the standard fonts' range), with escapes. */
function pdfString(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 63;
    const c = code < 32 || code > 255 ? '?' : ch;
    out += c === '\\' || c === '(' || c === ')' ? `\\${c}` : c;
  }
  return out;
}

function pdfDate(date: Date): string {
  return `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

// ------------------------------------------------------------------------------------------------
// OpenXML (DOCX, PPTX): the smallest part sets Word and PowerPoint open, zipped by hand.
// ------------------------------------------------------------------------------------------------

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function coreProps(content: DocumentContent): string {
  const stamp = content.date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `<dc:title>${xml(content.title)}</dc:title><dc:creator>${xml(content.author)}</dc:creator>` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${stamp}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${stamp}</dcterms:modified></cp:coreProperties>`
  );
}

export function buildDocx(content: DocumentContent): Buffer {
  const para = (text: string, opts: { bold?: boolean; size?: number } = {}): string =>
    `<w:p><w:r>${opts.bold || opts.size ? `<w:rPr>${opts.bold ? '<w:b/>' : ''}${opts.size ? `<w:sz w:val="${opts.size}"/>` : ''}</w:rPr>` : ''}<w:t xml:space="preserve">${xml(text)}</w:t></w:r></w:p>`;
  const body = [
    para(content.title, { bold: true, size: 40 }),
    para(`${content.author}, ${content.date.toISOString().slice(0, 10)}`),
    ...content.sections.flatMap((s) => [para(s.heading, { bold: true, size: 28 }), ...s.paragraphs.map((p) => para(p))]),
  ].join('');
  const files: Array<[string, string]> = [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="${REL_NS}"><Relationship Id="rId1" Type="${OFFICE_REL}/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ],
    [
      'word/document.xml',
      `${XML_HEAD}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`,
    ],
    ['docProps/core.xml', coreProps(content)],
  ];
  return zip(files, content.date);
}

const P_NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const EMPTY_TREE =
  '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>';

function textBox(id: number, name: string, y: number, height: number, paragraphs: string[], size: number, bold: boolean): string {
  const ps = paragraphs.map((t) => `<a:p><a:r><a:rPr lang="en-US" sz="${size}"${bold ? ' b="1"' : ''} dirty="0"/><a:t>${xml(t)}</a:t></a:r></a:p>`).join('');
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>` +
    `<p:spPr><a:xfrm><a:off x="457200" y="${y}"/><a:ext cx="8229600" cy="${height}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>` +
    `<p:txBody><a:bodyPr wrap="square" rtlCol="0"><a:normAutofit/></a:bodyPr><a:lstStyle/>${ps}</p:txBody></p:sp>`
  );
}

const THEME =
  `${XML_HEAD}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Mock"><a:themeElements>` +
  '<a:clrScheme name="Mock"><a:dk1><a:srgbClr val="000000"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="1F3A5F"/></a:dk2><a:lt2><a:srgbClr val="EEECE1"/></a:lt2>' +
  '<a:accent1><a:srgbClr val="4F81BD"/></a:accent1><a:accent2><a:srgbClr val="C0504D"/></a:accent2><a:accent3><a:srgbClr val="9BBB59"/></a:accent3><a:accent4><a:srgbClr val="8064A2"/></a:accent4>' +
  '<a:accent5><a:srgbClr val="4BACC6"/></a:accent5><a:accent6><a:srgbClr val="F79646"/></a:accent6><a:hlink><a:srgbClr val="0000FF"/></a:hlink><a:folHlink><a:srgbClr val="800080"/></a:folHlink></a:clrScheme>' +
  '<a:fontScheme name="Mock"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>' +
  '<a:fmtScheme name="Mock"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>' +
  '<a:lnStyleLst><a:ln w="9525"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="25400"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="38100"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>' +
  '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>' +
  '<a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme>' +
  '</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>';

/** A 16:9 deck: a title slide, then one slide per section with its paragraphs. */
export function buildPptx(content: DocumentContent): Buffer {
  const slides: string[] = [
    textBox(2, 'Title', 1600200, 1143000, [content.title], 3600, true) + textBox(3, 'Subtitle', 2857500, 685800, [content.author], 1800, false),
    ...content.sections.map((s) => textBox(2, 'Title', 274638, 857250, [s.heading], 2800, true) + textBox(3, 'Body', 1200150, 3600450, s.paragraphs, 1600, false)),
  ];
  const slideXml = (shapes: string): string =>
    `${XML_HEAD}<p:sld ${P_NS}><p:cSld><p:spTree>${EMPTY_TREE}${shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`;
  const rel = (id: string, type: string, target: string): string => `<Relationship Id="${id}" Type="${OFFICE_REL}/${type}" Target="${target}"/>`;
  const rels = (items: string[]): string => `${XML_HEAD}<Relationships xmlns="${REL_NS}">${items.join('')}</Relationships>`;
  const files: Array<[string, string]> = [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>' +
        '<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"/>' +
        '<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"/>' +
        '<Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>' +
        slides.map((_, i) => `<Override PartName="/ppt/slides/slide${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`).join('') +
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>',
    ],
    ['_rels/.rels', rels([rel('rId1', 'officeDocument', 'ppt/presentation.xml'), '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'])],
    ['docProps/core.xml', coreProps(content)],
    [
      'ppt/presentation.xml',
      `${XML_HEAD}<p:presentation ${P_NS} saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
        `<p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 3}"/>`).join('')}</p:sldIdLst>` +
        '<p:sldSz cx="9144000" cy="5143500"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
    ],
    ['ppt/_rels/presentation.xml.rels', rels([rel('rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'), rel('rId2', 'theme', 'theme/theme1.xml'), ...slides.map((_, i) => rel(`rId${i + 3}`, 'slide', `slides/slide${i + 1}.xml`))])],
    [
      'ppt/slideMasters/slideMaster1.xml',
      `${XML_HEAD}<p:sldMaster ${P_NS}><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld>` +
        '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>' +
        '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>',
    ],
    ['ppt/slideMasters/_rels/slideMaster1.xml.rels', rels([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'), rel('rId2', 'theme', '../theme/theme1.xml')])],
    [
      'ppt/slideLayouts/slideLayout1.xml',
      `${XML_HEAD}<p:sldLayout ${P_NS} type="blank" preserve="1"><p:cSld name="Blank"><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
    ],
    ['ppt/slideLayouts/_rels/slideLayout1.xml.rels', rels([rel('rId1', 'slideMaster', '../slideMasters/slideMaster1.xml')])],
    ['ppt/theme/theme1.xml', THEME],
    ...slides.flatMap((shapes, i): Array<[string, string]> => [
      [`ppt/slides/slide${i + 1}.xml`, slideXml(shapes)],
      [`ppt/slides/_rels/slide${i + 1}.xml.rels`, rels([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml')])],
    ]),
  ];
  return zip(files, content.date);
}

// ------------------------------------------------------------------------------------------------
// A small zip writer (deflate, fixed timestamps).
// ------------------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = (CRC_TABLE[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function zip(files: ReadonlyArray<readonly [string, string | Buffer]>, date: Date): Buffer {
  const dosTime = (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2);
  const dosDate = ((Math.max(1980, date.getUTCFullYear()) - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of files) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const compressed = zlib.deflateRawSync(data, { level: 6 });
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}
