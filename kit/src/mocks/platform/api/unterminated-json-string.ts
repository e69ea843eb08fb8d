/**
 * Whether `text` opens a JSON string (`"`, or `%22`) outside OData's single-quoted literals (`'` or
 * `%27`, doubled inside) and never closes it. `@odata/parser` 0.2 loops forever on such a string inside an array (`$filter=["`): its
 * JSON lexer steps past the end of the text looking for the closing quote. The mock refuses that
 * text with a 400 before the parser sees it; an unterminated string is not OData either way.
 */
export function hasUnterminatedJsonString(text: string): boolean {
  for (let i = 0; i < text.length;) {
    const single = singleQuoteAt(text, i);
    if (single > 0) {
      i = afterSingleQuoted(text, i + single);
      continue;
    }
    const open = quoteAt(text, i);
    if (open === 0) {
      i += 1;
      continue;
    }
    const close = afterJsonString(text, i + open);
    if (close === undefined) return true;
    i = close;
  }
  return false;
}

/** `"` is 1 character, `%22` 3 (the parser knows these exact spellings); 0 when neither starts at `i`. */
function quoteAt(text: string, i: number): number {
  if (text[i] === '"') return 1;
  return text.startsWith('%22', i) ? 3 : 0;
}

/** `\` is 1 character, `%5C` 3; 0 when neither starts at `i`. */
function escapeAt(text: string, i: number): number {
  if (text[i] === '\\') return 1;
  return text.startsWith('%5C', i) ? 3 : 0;
}

/** `'` is 1 character, `%27` 3; 0 when neither starts at `i`. */
function singleQuoteAt(text: string, i: number): number {
  if (text[i] === "'") return 1;
  return text.startsWith('%27', i) ? 3 : 0;
}

/** The index after the string whose content starts at `i`, or undefined when it never closes. */
function afterJsonString(text: string, i: number): number | undefined {
  while (i < text.length) {
    const escape = escapeAt(text, i);
    if (escape > 0) {
      // The escaped character, whatever it is (a quote among them), belongs to the string.
      i += escape + Math.max(1, quoteAt(text, i + escape));
      continue;
    }
    const quote = quoteAt(text, i);
    if (quote > 0) return i + quote;
    i += 1;
  }
  return undefined;
}

/** The index after the single-quoted literal whose content starts at `i` (a doubled quote inside is a quote); the end when it never closes. */
function afterSingleQuoted(text: string, i: number): number {
  while (i < text.length) {
    const quote = singleQuoteAt(text, i);
    if (quote === 0) {
      i += 1;
      continue;
    }
    const doubled = singleQuoteAt(text, i + quote);
    if (doubled === 0) return i + quote;
    i += quote + doubled;
  }
  return text.length;
}
