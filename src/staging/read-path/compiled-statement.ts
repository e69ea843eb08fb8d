import type { Knex } from 'knex';
import { isPostgres, sqliteReadHandle, type Db } from '../database/create-db';
import { pgPooledRows, statementName } from './pg-pooled-query';

/** A statement whose text was built once, to run again with other values. */
export interface CompiledStatement {
  /** knex's text (`?` placeholders). */
  sql: string;
  /** The native text (`$1`, … on Postgres). */
  native: string;
  /** Postgres: the prepared statement's name. */
  name: string;
}

export function compileStatement(built: Knex.Sql): CompiledStatement {
  const native = built.toNative().sql;
  return { sql: built.sql, native, name: statementName(native) };
}

/**
 * Runs a compiled read statement on the server thread without knex's builder and runner: on
 * Postgres as a named prepared statement on a pooled connection (parsed and planned once per
 * connection), on an SQLite file on the thread's own read connection (`SqliteReadHandle`, the
 * statement compiled once), else (SQLite's `:memory:`) through `knex.raw`. knex's `query` event is
 * emitted either way, so query logging and plan capture see it.
 */
export async function runCompiled<Row>(db: Db, statement: CompiledStatement, bindings: readonly Knex.Value[], method: 'first' | 'select'): Promise<Row[]> {
  if (isPostgres(db)) {
    db.emit('query', { sql: statement.native, bindings, method });
    return pgPooledRows<Row>(db, statement.name, statement.native, bindings);
  }
  const prepared = sqliteReadHandle(db)?.statement(statement.sql);
  if (!prepared) return (await db.raw(statement.sql, [...bindings])) as Row[];
  db.emit('query', { sql: statement.sql, bindings, method });
  return prepared.all(...bindings) as Row[];
}
