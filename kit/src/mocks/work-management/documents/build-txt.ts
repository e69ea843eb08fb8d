/** Plain-text documents (UTF-8), and the word wrapping the PDF builder shares. */
import { byline, type DocumentContent } from './document-content';

const WIDTH = 78;

export function buildTxt(content: DocumentContent): Buffer {
  const lines = [content.title, '='.repeat(content.title.length), '', byline(content)];
  for (const section of content.sections) {
    lines.push('', section.heading, '-'.repeat(section.heading.length));
    for (const p of section.paragraphs) lines.push('', ...wrapWords(p, WIDTH));
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

/**
 * Greedy word wrap: each line takes words while its width (the words' widths, plus a space's
 * between words) stays within `max`; a single word wider than that gets a line of its own. Each
 * word is measured once.
 */
export function wrapWords(text: string, max: number, width: (text: string) => number = (t) => t.length): string[] {
  const space = width(' ');
  const out: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const w = width(word);
    if (line && lineWidth + space + w > max) {
      out.push(line);
      line = '';
    }
    lineWidth = line ? lineWidth + space + w : w;
    line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}
