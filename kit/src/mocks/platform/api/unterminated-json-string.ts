/**
 * Whether `text` opens a JSON string (`"`, or `%22`) outside OData's single-quoted literals and never
 * closes it. `@odata/parser` 0.2 loops forever on such a string inside an array (`$filter=["`): its
 * JSON lexer steps past the end of the text looking for the closing quote. The mock refuses that
 * text with a 400 before the parser sees it; an unterminated string is not OData either way.
 */
export function hasUnterminatedJsonString(text: string): boolean {
  for (let i = 0; i < text.length;) {
    if (text[i] === "'") {
      i = afterSingleQuoted(text, i);
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

/** `"` is 1 character, `%22` 3; 0 when neither starts at `i`. */
function quoteAt(text: string, i: number): number {
  if (text[i] === '"') return 1;
  return text.slice(i, i + 3).toUpperCase() === '%22' ? 3 : 0;
}

/** `\` is 1 character, `%5C` 3; 0 when neither starts at `i`. */
function escapeAt(text: string, i: number): number {
  if (text[i] === '\\') return 1;
  return text.slice(i, i + 3).toUpperCase() === '%5C' ? 3 : 0;
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

/** The index after the single-quoted literal opening at `i` (`''` inside is a quote); the end when it never closes. */
function afterSingleQuoted(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j += 1) {
    if (text[j] !== "'") continue;
    if (text[j + 1] === "'") j += 1;
    else return j + 1;
  }
  return text.length;
}
