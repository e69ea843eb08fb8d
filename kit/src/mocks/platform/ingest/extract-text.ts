/**
 * Text of a gateway file, by MIME type (reference §2.6): HTML bodies, TXT, PDF (unpdf, in a worker thread), DOCX
 * (mammoth), PPTX (jszip: each slide's XML, in slide order). Whitespace is collapsed so offsets
 * into snippets stay meaningful.
 */
import { convert } from 'html-to-text';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { pdfText } from './pdf-text';

export const MIME = {
  html: 'text/html',
  txt: 'text/plain',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
} as const;

export class UnsupportedContentError extends Error {}

const squash = (text: string): string =>
  text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();

export function htmlToText(html: string): string {
  return squash(
    convert(html, {
      wordwrap: false,
      selectors: [
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
      ],
    }),
  );
}

async function pdfToText(bytes: Buffer): Promise<string> {
  return squash(await pdfText(bytes));
}

async function docxToText(bytes: Buffer): Promise<string> {
  return squash((await mammoth.extractRawText({ buffer: bytes })).value);
}

const slideNumber = (name: string): number => Number(/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0);

async function pptxToText(bytes: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  const slides = Object.keys(zip.files)
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => slideNumber(a) - slideNumber(b));
  const texts: string[] = [];
  for (const name of slides) {
    const xml = (await zip.file(name)?.async('string')) ?? '';
    // Paragraphs (`a:p`) become lines; the text runs (`a:t`) inside them are joined.
    const paragraphs = xml.split(/<\/a:p>/).map((p) => [...p.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)].map((m) => decodeXml(m[1] ?? '')).join(''));
    texts.push(paragraphs.filter((p) => p.trim()).join('\n'));
  }
  return squash(texts.join('\n'));
}

function decodeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_m, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()] as string;
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

/** The MIME type without parameters, lower-cased. */
export function baseMime(mime: string): string {
  return (mime.split(';')[0] ?? '').trim().toLowerCase();
}

/** Text of a downloaded binary; throws `UnsupportedContentError` for a type the platform does not index. */
export async function extractText(mime: string, bytes: Buffer): Promise<string> {
  switch (baseMime(mime)) {
    case MIME.txt:
      return squash(bytes.toString('utf8'));
    case MIME.html:
      return htmlToText(bytes.toString('utf8'));
    case MIME.pdf:
      return pdfToText(bytes);
    case MIME.docx:
      return docxToText(bytes);
    case MIME.pptx:
      return pptxToText(bytes);
    default:
      throw new UnsupportedContentError(`unsupported content type ${mime}`);
  }
}
