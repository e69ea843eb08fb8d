import { describeFilesystemSync } from './filesystem-sync-scenario';

/**
 * Issue 3's 10,000-file scenario on Postgres, a file of its own so it runs beside the SQLite half
 * (filesystem-sync.test.ts). Skipped, visibly, when TEST_DATABASE_URL is not set.
 */
describeFilesystemSync('postgres', process.env.TEST_DATABASE_URL ? describe : describe.skip);
