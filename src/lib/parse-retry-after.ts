const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;
/** The three HTTP-date forms of RFC 9110 §5.6.7: IMF-fixdate, obsolete RFC 850 and asctime. */
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850 = /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * A `Retry-After` header value in milliseconds from `now`: delta-seconds ("120", leniently
 * "1.5") or an HTTP-date. Missing, malformed, negative or already-past values give `undefined`,
 * so the caller falls back to its own backoff (a past date usually means clock skew).
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) {
    const ms = Math.round(Number(text) * 1000);
    return Number.isFinite(ms) ? ms : undefined;
  }
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) date = Date.parse(text);
  else if (ASCTIME.test(text)) date = Date.parse(`${text} GMT`);
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  const ms = date - now.getTime();
  return ms >= 0 ? ms : undefined;
}
