import { describeFilesystemSync } from './filesystem-sync-scenario';

/** Issue 3's 10,000-file scenario on SQLite (the Postgres half: filesystem-sync-postgres.test.ts). */
describeFilesystemSync('sqlite');
