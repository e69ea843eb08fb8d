/** A NUL, or a surrogate that is not half of a pair. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether both staging databases can hold `text` as it is, and so compare it: Postgres refuses a
 * NUL in `text` (the query fails), and a lone surrogate has no UTF-8 form (drivers replace it, so
 * a lookup would compare other text). Request text that reaches a query is checked with this, so
 * such input is a 400 on every database rather than a 500 on one and an empty answer on another.
 */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

export const UNSTORABLE_TEXT = 'holds a NUL or a lone surrogate, which no staging database can store';
