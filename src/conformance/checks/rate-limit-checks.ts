import { fail, warn, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

/** Fewer samples than this cannot show that headers are static. */
const MIN_SAMPLES_FOR_STATIC = 10;

/** Rate-limit headers: coherent when present, not static placeholders; every 429 says when to retry. */
export function rateLimitChecks(input: CheckInput): Finding[] {
  const samples = input.rateLimits;
  const coherent: Finding[] = [];
  const seen = new Set<string>();
  for (const s of samples) {
    const name = (h: string) => `${s.family}-${h}`;
    const problems: Array<[string, string, string | undefined]> = [];
    for (const h of ['limit', 'remaining', 'reset'] as const) {
      const v = s[h];
      if (v === undefined) problems.push([name(h), `${name(h)} is missing (the others are sent); the platform needs all three to pace itself`, v]);
      else if (!/^\d+$/.test(v.trim())) problems.push([name(h), `${name(h)} is not a whole number of ${h === 'reset' ? 'seconds' : 'requests'}`, v]);
    }
    if (s.limit !== undefined && s.remaining !== undefined && Number(s.remaining) > Number(s.limit))
      problems.push([name('remaining'), `${name('remaining')} (${s.remaining}) exceeds ${name('limit')} (${s.limit})`, s.remaining]);
    for (const [field, message, value] of problems) {
      if (seen.has(message)) continue; // one finding per kind of problem
      seen.add(message);
      coherent.push(fail('rate-limit.coherent', `${message}.`, { url: s.url, field, value }));
    }
  }
  const staticFindings: Finding[] = [];
  if (samples.length >= MIN_SAMPLES_FOR_STATIC) {
    const remaining = new Set(samples.map((s) => s.remaining));
    if (remaining.size === 1) {
      const s = samples[0];
      staticFindings.push(
        fail(
          'rate-limit.not-static',
          `${s?.family ?? 'rate-limit'}-remaining was ${s?.remaining ?? '?'} on all ${samples.length} responses: static placeholder headers are worse than none (the platform never slows down). Send real values or no headers.`,
          {
            url: s?.url,
            field: `${s?.family ?? 'x-ratelimit'}-remaining`,
            value: `${s?.limit ?? '?'}/${s?.remaining ?? '?'}/${s?.reset ?? '?'}`,
          },
        ),
      );
    }
  }
  const retryAfter = input.missingRetryAfter.map((m) =>
    m.status === 429
      ? fail('rate-limit.retry-after', 'A 429 without a usable Retry-After (integer seconds or an HTTP date).', { url: m.url, field: 'Retry-After' })
      : warn('rate-limit.retry-after', `A ${m.status} without Retry-After; the platform cannot tell when to come back.`, { url: m.url, field: 'Retry-After' }),
  );
  const none = samples.length === 0;
  return [
    ...outcome(
      'rate-limit.coherent',
      coherent,
      none
        ? 'no rate-limit headers sent (they are optional; the platform then uses its baseline pacing)'
        : `headers on ${plural(samples.length, 'response')} are coherent`,
    ),
    ...outcome(
      'rate-limit.not-static',
      staticFindings,
      none
        ? 'no rate-limit headers sent'
        : samples.length < MIN_SAMPLES_FOR_STATIC
          ? `only ${plural(samples.length, 'response')} with headers (too few to judge)`
          : `remaining moved across ${plural(samples.length, 'response')}`,
    ),
    ...outcome('rate-limit.retry-after', retryAfter, input.stats.statusCounts['429'] ? 'every 429 carried Retry-After' : 'no 429 seen'),
  ];
}
