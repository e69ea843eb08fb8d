import type { AdapterFactory } from '../adapter-factory';

/** The SQL adapter's settings, as the environment spells them (shown by `sync --help` and the docs). */
export const SQL_SETTINGS = [
  {
    env: 'SQL_DATABASE_URL',
    description:
      'Database to read (required): postgres://user:pass@host:5432/db, mysql:// or mariadb://user:pass@host:3306/db, or sqlite:path/to/file.db (opened read-only). Secret: never logged (the password is masked).',
  },
  {
    env: 'SQL_MAPPING',
    description: 'YAML or JSON mapping file: which table or query gives documents, users, roles, groups and changes (required; see docs/sql-adapter.md).',
  },
  { env: 'SQL_SOURCE_NAME', description: 'Source name: the id prefix of everything synced from this database.', default: 'sql' },
  { env: 'SQL_PAGE_SIZE', description: 'Rows read per query (documents, changes, listings).', default: '500' },
] as const;

/**
 * `sql`: documents, users, roles and groups of a relational database (Postgres, MySQL/MariaDB,
 * SQLite), as a mapping file describes them. The registry loads only this file; `create` loads the
 * adapter (and its database client) when it runs.
 */
export const sqlAdapterFactory: AdapterFactory = {
  name: 'sql',
  description:
    'Documents, users, role assignments, attributes and groups from a relational database (Postgres, MySQL/MariaDB or SQLite), mapped by a YAML or JSON file; incremental by a modified-time column or a change table, deletions found by listing ids.',
  settings: SQL_SETTINGS,
  create: async (env) => {
    const { sqlConfigFromEnv } = await import('./sql-config');
    const { createSqlAdapter } = await import('./sql-adapter');
    return createSqlAdapter(sqlConfigFromEnv(env));
  },
};
