import fc from 'fast-check';
import { DEFAULT_RETRY_POLICY, type Outcome, type RetryPolicy, backoffMs, isSafeToRepeat, shouldRetry } from '../../src/outbound-http/retry-policy';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const response = (status: number): Outcome => ({ kind: 'response', status });
const network = (code?: string): Outcome => ({ kind: 'network-error', ...(code === undefined ? {} : { code }) });

describe('shouldRetry', () => {
  describe.each([
    [200, false],
    [204, false],
    [304, false],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [408, true],
    [409, false],
    [410, false],
    [412, false],
    [422, false],
    [429, true],
    [500, true],
    [501, false],
    [502, true],
    [503, true],
    [504, true],
    [507, true],
    [599, true],
  ])('status %i', (status, retryable) => {
    it.each([
      [1, retryable],
      [3, retryable],
      [4, false],
      [9, false],
    ])('after attempt %i → %s', (attempt, expected) => {
      expect(shouldRetry(response(status), attempt, policy)).toBe(expected);
    });
  });

  it.each([
    ['ECONNRESET', true],
    ['ECONNREFUSED', true],
    ['ETIMEDOUT', true],
    ['EAI_AGAIN', true],
    ['EPIPE', true],
    ['EHOSTUNREACH', true],
    ['UND_ERR_SOCKET', true],
    ['UND_ERR_CONNECT_TIMEOUT', true],
    ['UND_ERR_HEADERS_TIMEOUT', true],
    ['UND_ERR_BODY_TIMEOUT', true],
    ['UND_ERR_CLOSED', true],
    ['ENOTFOUND', false],
    ['ABORT_ERR', false],
    ['AbortError', false],
    ['UND_ERR_ABORTED', false],
    ['UND_ERR_INVALID_ARG', false],
    ['ERR_INVALID_URL', false],
    [undefined, false],
  ])('network error %s → %s (until attempts run out)', (code, expected) => {
    expect(shouldRetry(network(code), 1, policy)).toBe(expected);
    expect(shouldRetry(network(code), policy.maxAttempts, policy)).toBe(false);
  });

  it('never retries when maxAttempts is 1', () => {
    expect(shouldRetry(response(503), 1, { ...policy, maxAttempts: 1 })).toBe(false);
  });
});

describe('isSafeToRepeat', () => {
  it.each([
    [response(503), true, true],
    [network('ECONNRESET'), true, true],
    [response(429), false, true],
    [network('ECONNREFUSED'), false, true],
    [response(503), false, false],
    [response(502), false, false],
    [network('ECONNRESET'), false, false],
    [network('ETIMEDOUT'), false, false],
  ])('%j idempotent=%s → %s', (outcome, idempotent, expected) => {
    expect(isSafeToRepeat(outcome, idempotent)).toBe(expected);
  });
});

describe('backoffMs', () => {
  const max = () => 0.999_999_9;
  it.each([
    // attempt, random, retryAfterMs, expected
    [1, max, undefined, 99],
    [2, max, undefined, 199],
    [3, max, undefined, 399],
    [4, max, undefined, 799],
    [5, max, undefined, 999],
    [40, max, undefined, 999],
    [3, () => 0, undefined, 0],
    [3, () => 0.5, undefined, 200],
    [1, max, 2_000, 2_000],
    [1, max, 0, 0],
    [1, max, 60_000, 5_000],
    [9, () => 0, 1_234, 1_234],
  ])('attempt %i, random %p, Retry-After %p ms → %i ms', (attempt, random, retryAfterMs, expected) => {
    expect(backoffMs(attempt, { retryAfterMs, random }, policy)).toBe(expected);
  });

  it('has sensible defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 });
    expect(backoffMs(1, { random: () => 0.5 }, DEFAULT_RETRY_POLICY)).toBe(250);
  });

  it('always stays within [0, cap], whatever the attempt, jitter, Retry-After or policy', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 2_000 }),
        fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double()),
        fc.option(fc.oneof(fc.nat({ max: 10_000_000 }), fc.double()), { nil: undefined }),
        fc.record({
          maxAttempts: fc.integer({ min: 1, max: 10 }),
          baseDelayMs: fc.nat({ max: 100_000 }),
          maxDelayMs: fc.nat({ max: 1_000_000 }),
          maxRetryAfterMs: fc.nat({ max: 1_000_000 }),
        }),
        (attempt, r, retryAfterMs, p) => {
          const delay = backoffMs(attempt, { retryAfterMs, random: () => r }, p);
          const cap = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) ? p.maxRetryAfterMs : p.maxDelayMs;
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(cap);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
