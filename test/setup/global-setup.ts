/**
 * Says once, visibly, whether the Postgres half of the suite runs, and whether the suites that
 * need Redis do. CI sets TEST_DATABASE_URL and TEST_REDIS_URL (see .ci/run); a machine without
 * them runs the SQLite half only and skips the Redis suites.
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    process.stdout.write(`\n[content-gateway tests] Postgres suites run against ${url.replace(/\/\/[^@]*@/, '//***@')}\n`);
  } else {
    process.stdout.write(
      '\n[content-gateway tests] TEST_DATABASE_URL is not set: Postgres suites are SKIPPED (SQLite suites run). ' +
        'Set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them.\n',
    );
  }
  const redis = process.env.TEST_REDIS_URL;
  if (redis) {
    process.stdout.write(`[content-gateway tests] Redis suites (shared rate limits, replicas) run against ${redis.replace(/\/\/[^@]*@/, '//***@')}\n`);
  } else {
    process.stdout.write(
      '[content-gateway tests] TEST_REDIS_URL is not set: Redis suites (shared rate limits, replicas) are SKIPPED. ' +
        'Set TEST_REDIS_URL=redis://127.0.0.1:6379 to run them.\n',
    );
  }
}
