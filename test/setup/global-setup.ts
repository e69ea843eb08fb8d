/**
 * Says once, visibly, whether the Postgres half of the suite runs. CI sets TEST_DATABASE_URL
 * (see .ci/run); a machine without it runs the SQLite half only.
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
}
