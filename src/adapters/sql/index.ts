export { createSqlAdapter, SqlAdapter } from './sql-adapter';
export { sqlCheckpointSchema, type SqlCheckpoint } from './sql-checkpoint';
export { SQL_SETTINGS, sqlAdapterFactory } from './sql-adapter-factory';
export { sqlConfigFromEnv, type SqlAdapterConfig } from './sql-config';
export { parseDatabaseUrl, redactDatabaseUrl, type SqlConnection, type SqlDialect } from './sql-connection';
export { loadSqlMapping, resolveSqlMapping, SqlMappingError, type ResolvedSqlMapping } from './sql-mapping-file';
export { sqlMappingSchema, type SqlMapping, type SqlMappingInput } from './sql-mapping-schema';
