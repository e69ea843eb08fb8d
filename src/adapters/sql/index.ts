import type { AdapterFactory } from '../adapter-factory';
import { createSqlAdapter } from './sql-adapter';
import { SQL_SETTINGS, sqlConfigFromEnv } from './sql-config';

export { createSqlAdapter, SqlAdapter } from './sql-adapter';
export { sqlCheckpointSchema, type SqlCheckpoint } from './sql-checkpoint';
export { sqlConfigFromEnv, SQL_SETTINGS, type SqlAdapterConfig } from './sql-config';
export { parseDatabaseUrl, redactDatabaseUrl, type SqlConnection, type SqlDialect } from './sql-connection';
export { loadSqlMapping, resolveSqlMapping, SqlMappingError, type ResolvedSqlMapping } from './sql-mapping-file';
export { sqlMappingSchema, type SqlMapping, type SqlMappingInput } from './sql-mapping-schema';

/** `sql`: documents, users, roles and groups of a relational database (Postgres, MySQL/MariaDB, SQLite), as a mapping file describes them. */
export const sqlAdapterFactory: AdapterFactory = {
  name: 'sql',
  description:
    'Documents, users, role assignments, attributes and groups from a relational database (Postgres, MySQL/MariaDB or SQLite), mapped by a YAML or JSON file; incremental by a modified-time column or a change table, deletions found by listing ids.',
  settings: SQL_SETTINGS.map((s) => ({ ...s })),
  create: (env) => createSqlAdapter(sqlConfigFromEnv(env)),
};
