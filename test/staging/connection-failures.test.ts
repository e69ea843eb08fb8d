import knex from 'knex';
import { responseError } from '../../src/http/middleware/error-handler';
import { isDatabaseUnavailable } from '../../src/lib/database-unavailable';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { pgPooledRows, pgPooledTextRows, statementName } from '../../src/staging/read-path/pg-pooled-query';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * Issue 27 (4): every error a dying connection raises, in either driver, says "the database
 * cannot be reached" (503 with Retry-After), not "the gateway is broken" (500). Each row of the
 * table makes the failure happen for real, through a loopback proxy in front of the test server,
 * and takes the error as each of the staging database's three ways of running a statement meets
 * it: knex's builder and runner, a prepared statement on one of knex's connections
 * (`pgPooledRows`), and a list page's, its rows as text (`pgPooledTextRows`).
 */
jest.setTimeout(120_000);

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

type Way = 'knex' | 'pooled statement' | 'list page';
const WAYS: Way[] = ['knex', 'pooled statement', 'list page'];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `sql` the given way; resolves with the error it fails with (or 'no error', or 'no answer' after a generous deadline). */
async function failureOf(db: Db, way: Way, sql: string): Promise<unknown> {
  const run = (): Promise<unknown> => {
    if (way === 'knex') return db.raw(sql).then(() => undefined);
    if (way === 'pooled statement') return pgPooledRows(db, statementName(sql), sql, []);
    return pgPooledTextRows(db, statementName(sql), sql, []);
  };
  const outcome = run().then(
    () => 'no error',
    (error: unknown) => error,
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('no answer'), 20_000);
  });
  return Promise.race([outcome, deadline]).finally(() => clearTimeout(timer));
}

interface Scenario {
  name: string;
  /** Bounds the database is opened with. */
  timeouts: { connectMs: number; statementMs: number };
  /** Makes the failure happen to `start()`'s statement; resolves with its error. */
  provoke(proxy: TcpProxy, start: (sql: string) => Promise<unknown>, warm: () => Promise<unknown>): Promise<unknown>;
}

const LONG = { connectMs: 1000, statementMs: 10_000 };
const SHORT = { connectMs: 500, statementMs: 300 };

const SCENARIOS: Scenario[] = [
  {
    name: 'reset (RST) mid-statement',
    timeouts: LONG,
    async provoke(proxy, start, warm) {
      await warm();
      const failed = start('select pg_sleep(3)');
      await sleep(300);
      proxy.drop('reset');
      return failed;
    },
  },
  {
    name: 'closed (FIN) mid-statement',
    timeouts: LONG,
    async provoke(proxy, start, warm) {
      await warm();
      const failed = start('select pg_sleep(3)');
      await sleep(300);
      proxy.drop('close');
      return failed;
    },
  },
  {
    name: 'reset (RST) while the connection opens',
    timeouts: LONG,
    async provoke(proxy, start) {
      proxy.freeze();
      const failed = start('select 1');
      await sleep(300);
      proxy.drop('reset');
      proxy.thaw();
      return failed;
    },
  },
  {
    name: 'closed (FIN) while the connection opens',
    timeouts: LONG,
    async provoke(proxy, start) {
      proxy.freeze();
      const failed = start('select 1');
      await sleep(300);
      proxy.drop('close');
      proxy.thaw();
      return failed;
    },
  },
  {
    name: 'refused (nothing listens)',
    timeouts: LONG,
    async provoke(proxy, start) {
      await proxy.cut();
      const failed = await start('select 1');
      await proxy.restore();
      return failed;
    },
  },
  {
    name: 'no answer while the connection opens (connect timeout)',
    timeouts: SHORT,
    async provoke(proxy, start) {
      proxy.freeze();
      const failed = await start('select 1');
      proxy.thaw();
      return failed;
    },
  },
  {
    name: 'no answer to a statement (the client-side bound)',
    timeouts: SHORT,
    async provoke(proxy, start, warm) {
      await warm();
      proxy.freeze();
      const failed = await start('select 1');
      proxy.thaw();
      return failed;
    },
  },
  {
    name: 'statement timeout (57014, the server cancels)',
    timeouts: SHORT,
    async provoke(_proxy, start) {
      return start('select pg_sleep(3)');
    },
  },
  {
    name: 'backend terminated by the server (57P01)',
    timeouts: LONG,
    async provoke(_proxy, start, warm) {
      await warm();
      const marker = `select pg_sleep(3.${Math.floor(Math.random() * 1e6)})`;
      const failed = start(marker);
      await sleep(300);
      const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
      await admin.raw('select pg_terminate_backend(pid) from pg_stat_activity where query = ?', [marker]);
      await admin.destroy();
      return failed;
    },
  },
];

describeWithPostgres('errors of a dying Postgres connection, made to happen, in each way a statement runs', () => {
  let proxy: TcpProxy;
  let proxiedUrl: string;

  beforeAll(async () => {
    const target = new URL(pgUrl as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(target.href);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    proxiedUrl = proxied.href;
  });
  afterAll(async () => {
    await proxy.close();
  });

  const rows = SCENARIOS.flatMap((scenario) => WAYS.map((way) => [scenario.name, way, scenario] as const));
  it.each(rows)('%s, met by the %s: classified as unavailable (503)', async (_name, way, scenario) => {
    const db = createDb({ databaseUrl: proxiedUrl, sqlitePath: ':memory:', maxConnections: 2, timeouts: scenario.timeouts });
    try {
      const error = await scenario.provoke(
        proxy,
        (sql) => failureOf(db, way, sql),
        () => failureOf(db, way, 'select 1'),
      );
      const summary = error instanceof Error ? `${error.name} ${String((error as { code?: unknown }).code)} ${error.message}` : String(error);
      expect([summary, isDatabaseUnavailable(error)]).toEqual([summary, true]);
      expect(responseError(error).status).toBe(503);
    } finally {
      proxy.thaw();
      await db.destroy();
    }
  });

  it('a connection lost inside a transaction: the statements after it are classified too', async () => {
    const db = createDb({ databaseUrl: proxiedUrl, sqlitePath: ':memory:', maxConnections: 2, timeouts: LONG });
    try {
      const errors: unknown[] = [];
      await db
        .transaction(async (trx) => {
          await trx.raw('select 1');
          proxy.drop('close');
          await sleep(200);
          errors.push(
            await trx.raw('select 1').then(
              () => 'no error',
              (error: unknown) => error,
            ),
          );
        })
        .catch((error: unknown) => errors.push(error));
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) expect([String((error as Error).message), isDatabaseUnavailable(error)]).toEqual([String((error as Error).message), true]);
    } finally {
      await db.destroy();
    }
  });
});
