import { removeSqliteTemplate } from './sqlite-template';

/** Removes what global setup made for the run (the migrated SQLite template). */
export default function globalTeardown(): void {
  removeSqliteTemplate();
}
