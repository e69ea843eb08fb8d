/**
 * Compares strings by Unicode code point, the order of their UTF-8 bytes: SQLite's default
 * collation and the "C" collation the staging keys use on Postgres. JavaScript's `<` compares
 * UTF-16 units instead, which puts U+E000–U+FFFF after the astral planes; remapping the units
 * at the first difference restores code point order.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (astral code points) rank above the rest of the BMP. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
