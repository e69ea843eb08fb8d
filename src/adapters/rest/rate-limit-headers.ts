/** What an answer says of the API's budget: requests left in the window, and when it resets (ms from now). */
export interface AnnouncedLimit {
  remaining: number;
  resetMs: number;
}

/** A reset above this is an epoch time in seconds (GitHub's `X-RateLimit-Reset`), not seconds from now. */
const EPOCH_SECONDS = 1_000_000_000;

function count(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

/** A reset value in ms from `now`: delta seconds, or epoch seconds (ms when it is that large). Past values give 0. */
function resetFrom(value: number, now: number): number {
  if (value < EPOCH_SECONDS) return value * 1000;
  const epochMs = value < EPOCH_SECONDS * 1000 ? value * 1000 : value;
  return Math.max(0, epochMs - now);
}

/** `r` and `t` of the structured `RateLimit` field (draft-ietf-httpapi-ratelimit-headers 08+): `"default";r=0;t=30`; also `remaining=0, reset=30` (drafts 03-07). */
function structured(field: string): { remaining?: number; reset?: number } {
  const pick = (names: string[]): number | undefined => {
    for (const name of names) {
      const match = new RegExp(`(?:^|[;,\\s])${name}=(\\d+)`).exec(field);
      if (match) return Number(match[1]);
    }
    return undefined;
  };
  const remaining = pick(['r', 'remaining']);
  const reset = pick(['t', 'reset']);
  return { ...(remaining !== undefined ? { remaining } : {}), ...(reset !== undefined ? { reset } : {}) };
}

/**
 * The budget an answer announces, in whichever dialect it speaks: `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (seconds from now, or an epoch time), the IETF draft's `RateLimit-Remaining`
 * and `RateLimit-Reset`, or its structured `RateLimit` field. Undefined when it announces none (or
 * gives a remaining count without a reset: there is then nothing to wait for).
 */
export function announcedLimit(headers: Headers, now: number): AnnouncedLimit | undefined {
  const field = headers.get('ratelimit');
  const fromField = field === null ? {} : structured(field);
  const remaining = fromField.remaining ?? count(headers.get('ratelimit-remaining')) ?? count(headers.get('x-ratelimit-remaining'));
  const reset = fromField.reset ?? count(headers.get('ratelimit-reset')) ?? count(headers.get('x-ratelimit-reset'));
  if (remaining === undefined || reset === undefined) return undefined;
  return { remaining, resetMs: resetFrom(reset, now) };
}
