import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/outbound-http/retry-policy';

/**
 * The product's retries (as many attempts, Retry-After honoured as ever), with backoffs of
 * milliseconds rather than seconds: suites that inject failing reads wait for no one, and still
 * see every retry the product would make.
 */
export const QUICK_RETRIES: Readonly<RetryPolicy> = Object.freeze({ ...DEFAULT_RETRY_POLICY, baseDelayMs: 20, maxDelayMs: 500 });
