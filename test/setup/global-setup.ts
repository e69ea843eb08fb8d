import { createSqliteTemplate } from './sqlite-template';
import { TEST_RUN_VARIABLE } from './test-run';

/**
 * Says once, visibly, which service-backed suites run: the Postgres half, the suites that need
 * Redis, and the SQL adapter's MariaDB sources. CI sets TEST_DATABASE_URL, TEST_REDIS_URL and
 * TEST_MARIADB_URL (see .ci/run); a machine without them runs the SQLite half only and skips the
 * others. Then migrates the SQLite file that fresh SQLite test databases are copied from, and
 * names the run (the program is built once per run: built-program.ts).
 */
export default async function globalSetup(): Promise<void> {
  // Test processes start after this: the first to start the CLI builds it for the whole run.
  process.env[TEST_RUN_VARIABLE] = `${process.pid}-${Date.now()}`;
  await createSqliteTemplate();
  const mask = (url: string) => url.replace(/\/\/[^@]*@/, '//***@');
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    process.stdout.write(`\n[content-gateway tests] Postgres suites run against ${mask(url)}\n`);
  } else {
    process.stdout.write(
      '\n[content-gateway tests] TEST_DATABASE_URL is not set: Postgres suites are SKIPPED (SQLite suites run). ' +
        'Set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them.\n',
    );
  }
  const redis = process.env.TEST_REDIS_URL;
  if (redis) {
    process.stdout.write(`[content-gateway tests] Redis suites (shared rate limits, replicas) run against ${mask(redis)}\n`);
  } else {
    process.stdout.write(
      '[content-gateway tests] TEST_REDIS_URL is not set: Redis suites (shared rate limits, replicas) are SKIPPED. ' +
        'Set TEST_REDIS_URL=redis://127.0.0.1:6379 to run them.\n',
    );
  }
  const mariadb = process.env.TEST_MARIADB_URL;
  if (mariadb) {
    process.stdout.write(`[content-gateway tests] MariaDB suites (the SQL adapter's sources) run against ${mask(mariadb)}\n`);
  } else {
    process.stdout.write(
      '[content-gateway tests] TEST_MARIADB_URL is not set: MariaDB suites (the SQL adapter against MariaDB) are SKIPPED. ' +
        'Set TEST_MARIADB_URL=mysql://root@127.0.0.1:3306/test to run them.\n',
    );
  }
}
