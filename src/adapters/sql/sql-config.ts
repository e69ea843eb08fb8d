import { z } from 'zod';
import { ADAPTER_NAME } from '../adapter';
import { parseDatabaseUrl, type SqlConnection } from './sql-connection';
import { loadSqlMapping, type ResolvedSqlMapping } from './sql-mapping-file';

export interface SqlAdapterConfig {
  connection: SqlConnection;
  mapping: ResolvedSqlMapping;
  sourceName: string;
  pageSize: number;
}

const unsetIfBlank = (value: unknown): unknown => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const envSchema = z.object({
  SQL_DATABASE_URL: z.preprocess(unsetIfBlank, z.string({ message: 'is required' })),
  SQL_MAPPING: z.preprocess(unsetIfBlank, z.string({ message: 'is required' })),
  SQL_SOURCE_NAME: z.preprocess(
    unsetIfBlank,
    z.string().regex(ADAPTER_NAME, { message: 'expected lower-case letters, digits and dashes, starting with a letter (at most 32)' }).default('sql'),
  ),
  SQL_PAGE_SIZE: z.preprocess(
    unsetIfBlank,
    z.coerce
      .number({ message: 'expected a whole number' })
      .int({ message: 'expected a whole number' })
      .min(1, { message: 'at least 1' })
      .max(10_000, { message: 'at most 10000' })
      .default(500),
  ),
});

/**
 * Reads the settings from the environment and the mapping file they name. Throws an Error naming
 * each bad variable (never the database URL's password), or the mapping file and its bad keys.
 */
export function sqlConfigFromEnv(env: Record<string, string | undefined>): SqlAdapterConfig {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${String(issue.path[0] ?? 'SQL')}: ${issue.message}`);
  let connection: SqlConnection | undefined;
  if (parsed.success) {
    try {
      connection = parseDatabaseUrl(parsed.data.SQL_DATABASE_URL);
    } catch (error) {
      problems.push(`SQL_DATABASE_URL: ${(error as Error).message}`);
    }
  }
  if (!parsed.success || !connection || problems.length > 0) throw new Error(`Invalid sql adapter settings: ${problems.join('; ')}`);
  return {
    connection,
    mapping: loadSqlMapping(parsed.data.SQL_MAPPING),
    sourceName: parsed.data.SQL_SOURCE_NAME,
    pageSize: parsed.data.SQL_PAGE_SIZE,
  };
}
