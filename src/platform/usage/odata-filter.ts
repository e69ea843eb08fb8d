/** OData `$filter` text for the Data API: string literals, conjunctions, and `or` lists cut to fit a URL. */

/** A string literal: single quotes, a quote inside doubled (OData ABNF). */
export function quote(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `a and b and …`, each part parenthesised when it has an `or`; undefined parts are left out. */
export function allOf(...parts: Array<string | undefined>): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined && p !== '');
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return present.map((p) => (/\sor\s/.test(p) ? `(${p})` : p)).join(' and ');
}

/** `field eq 'a' or field eq 'b' …`: any of the values. */
export function anyOf(field: string, values: readonly string[]): string {
  return values.map((v) => `${field} eq ${quote(v)}`).join(' or ');
}

/**
 * The values in consecutive batches whose `anyOf` filter stays within `maxChars` once
 * percent-encoded (URLs past a few kilobytes are refused by proxies) and `maxTerms` terms. A value
 * too long for a batch of its own still gets one.
 */
export function filterBatches(field: string, values: readonly string[], options: { maxChars: number; maxTerms: number }): string[][] {
  const joiner = encodeURIComponent(' or ').length;
  const out: string[][] = [];
  let batch: string[] = [];
  let length = 0;
  for (const value of values) {
    const term = encodeURIComponent(`${field} eq ${quote(value)}`).length;
    if (batch.length > 0 && (length + joiner + term > options.maxChars || batch.length >= options.maxTerms)) {
      out.push(batch);
      batch = [];
      length = 0;
    }
    length += (batch.length > 0 ? joiner : 0) + term;
    batch.push(value);
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
