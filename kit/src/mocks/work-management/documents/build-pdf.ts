/**
 * PDF documents through pdf-lib: A4 pages, Helvetica and Helvetica-Bold (standard fonts, not
 * embedded, WinAnsi text), lines wrapped to the measured text width, a new page when one is full.
 * The dates, producer and creator are pinned, so the same content gives the same bytes.
 */
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { byline, type DocumentContent } from './document-content';
import { wrapWords } from './build-txt';

const PAGE: [number, number] = [595, 842];
const MARGIN = 64;
const TEXT_WIDTH = PAGE[0] - 2 * MARGIN;
const PRODUCER = 'work-management mock';

interface Line {
  text: string;
  font: PDFFont;
  size: number;
  /** Extra space above the line, in points. */
  gap: number;
}

export async function buildPdf(content: DocumentContent): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(content.title);
  doc.setAuthor(content.author);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  doc.setCreationDate(content.date);
  doc.setModificationDate(content.date);
  const regular = doc.embedStandardFont(StandardFonts.Helvetica);
  const bold = doc.embedStandardFont(StandardFonts.HelveticaBold);
  let page = doc.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  for (const line of layout(content, regular, bold)) {
    const height = line.size * 1.4 + line.gap;
    if (y - height < MARGIN && y < PAGE[1] - MARGIN) {
      page = doc.addPage(PAGE);
      y = PAGE[1] - MARGIN;
    }
    y -= height;
    page.drawText(line.text, { x: MARGIN, y, size: line.size, font: line.font });
  }
  // A classic cross-reference table (object streams cost ~10x the save time for a few objects), no
  // form (pdf-lib would add an empty AcroForm), and no ticks between objects: a document is small.
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The document's lines, top to bottom: title, byline, then each heading and its wrapped paragraphs. */
function layout(content: DocumentContent, regular: PDFFont, bold: PDFFont): Line[] {
  const lines = [...wrapped(content.title, bold, 18, 0), ...wrapped(byline(content), regular, 10, 6)];
  for (const s of content.sections) {
    lines.push(...wrapped(s.heading, bold, 13, 14));
    for (const p of s.paragraphs) lines.push(...wrapped(p, regular, 10, 6));
  }
  return lines;
}

/**
 * One paragraph as lines that fit the text width (a word wider than a line is cut into pieces
 * that fit: a viewer would clip it at the page edge); only the first line keeps the gap above it.
 */
function wrapped(text: string, font: PDFFont, size: number, gap: number): Line[] {
  const width = (t: string): number => font.widthOfTextAtSize(t, size);
  const fits = (t: string): boolean => width(t) <= TEXT_WIDTH;
  const words = text
    .split(/\s+/)
    .map((word) => encodable(font, word))
    .flatMap((word) => (fits(word) ? [word] : pieces(word, fits)));
  return wrapWords(words.join(' '), TEXT_WIDTH, width).map((t, i) => ({ text: t, font, size, gap: i === 0 ? gap : 0 }));
}

function pieces(word: string, fits: (line: string) => boolean): string[] {
  const out: string[] = [];
  let piece = '';
  for (const ch of word) {
    if (piece && !fits(piece + ch)) {
      out.push(piece);
      piece = '';
    }
    piece += ch;
  }
  if (piece) out.push(piece);
  return out;
}

const charsets = new Map<string, Set<number>>();

/** The text with every character the font cannot encode (outside WinAnsi, controls) replaced by `?`. */
function encodable(font: PDFFont, text: string): string {
  let set = charsets.get(font.name);
  if (!set) charsets.set(font.name, (set = new Set(font.getCharacterSet())));
  let out = '';
  for (const ch of text) out += set.has(ch.codePointAt(0) ?? -1) ? ch : '?';
  return out;
}
