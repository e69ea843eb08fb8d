/** Dotless ı: the case round trip would make it `i`, which Unicode case folding keeps apart. */
const DOTLESS_I = '\u0131';

function foldCodePoint(c: string): string {
  return c === DOTLESS_I ? c : c.toUpperCase().toLowerCase();
}

/**
 * Unicode case folding, code point by code point (so no context-sensitive mapping such as the
 * final sigma applies): JavaScript has no case-folding call, and the upper-then-lower round trip of
 * each code point, repeated until it settles (`ẞ` → `ß` → `ss`), puts together exactly the code
 * points that full case folding does (checked over every code point against another
 * implementation's `casefold`), which is what matching two spellings needs.
 */
export function caseFold(text: string): string {
  let folded = text;
  for (let round = 0; round < 3; round++) {
    const next = Array.from(folded, foldCodePoint).join('');
    if (next === folded) break;
    folded = next;
  }
  return folded;
}

/**
 * The form all spellings of one email address share: trimmed, Unicode NFKC (compatibility forms
 * such as full-width letters become plain ones), case-folded, and NFKC again (folding can
 * decompose). Two sources naming one person with `Ana@Example.com` and `ａｎａ@example.com` agree.
 */
export function normalizeEmail(email: string): string {
  return caseFold(email.trim().normalize('NFKC')).normalize('NFKC').trim();
}
