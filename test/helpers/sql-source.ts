import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';

/**
 * A source database for the SQL adapter's tests: a SQLite file always, a Postgres schema of its
 * own when TEST_DATABASE_URL is set, a MariaDB database of its own when TEST_MARIADB_URL is set.
 * Each is created fresh (`t_<random>`) and dropped by `destroy`, so parallel runs never meet.
 */
export type SourceKind = 'sqlite' | 'postgres' | 'mariadb';

export const sourceKinds: SourceKind[] = [
  'sqlite',
  ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : []),
  ...(process.env.TEST_MARIADB_URL ? (['mariadb'] as const) : []),
];

export interface SqlSource {
  kind: SourceKind;
  /** What SQL_DATABASE_URL is set to. */
  url: string;
  /** A read-write connection, for fixtures and mutations. */
  db: Knex;
  /** A timestamp as this database's driver takes it (SQLite keeps ISO text). */
  ts(at: Date | number): Date | string;
  destroy(): Promise<void>;
}

function ts(kind: SourceKind): (at: Date | number) => Date | string {
  return (at) => {
    const date = new Date(at);
    return kind === 'sqlite' ? date.toISOString() : date;
  };
}

export async function createSqlSource(kind: SourceKind): Promise<SqlSource> {
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-'));
    const file = path.join(dir, 'source.db');
    const db = knex({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true });
    return {
      kind,
      url: `sqlite:${file}`,
      db,
      ts: ts(kind),
      destroy: async () => {
        await db.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (kind === 'postgres') {
    const base = process.env.TEST_DATABASE_URL as string;
    const admin = knex({ client: 'pg', connection: base, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [name]);
    await admin.destroy();
    const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${name}`)}`;
    const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
    return {
      kind,
      url,
      db,
      ts: ts(kind),
      destroy: async () => {
        await db.raw('drop schema if exists ?? cascade', [name]);
        await db.destroy();
      },
    };
  }
  const base = new URL(process.env.TEST_MARIADB_URL as string);
  const admin = knex({ client: 'mysql2', connection: base.toString(), pool: { min: 0, max: 1 } });
  await admin.raw('create database ??', [name]);
  await admin.destroy();
  base.pathname = `/${name}`;
  const url = base.toString();
  const connection = {
    host: base.hostname,
    port: Number(base.port || 3306),
    user: decodeURIComponent(base.username),
    password: decodeURIComponent(base.password),
    database: name,
    timezone: 'Z',
  };
  const db = knex({ client: 'mysql2', connection, pool: { min: 0, max: 2 } });
  return {
    kind,
    url,
    db,
    ts: ts(kind),
    destroy: async () => {
      await db.raw('drop database if exists ??', [name]);
      await db.destroy();
    },
  };
}

/** Runs a plain SQL script (comment lines dropped, split on `;`; no semicolons inside strings in ours). */
export async function runSqlScript(db: Knex, file: string): Promise<void> {
  const text = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  for (const sql of text
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== ''))
    await db.raw(sql);
}
