import { z } from 'zod';
import { setting } from './setting-spec';
import { positiveInt } from './setting-values';

/** The staging database: Postgres or the embedded SQLite file, its connections and time limits. */
export const databaseSettings = {
  databaseUrl: setting({
    env: 'DATABASE_URL',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, { message: 'expected a postgres:// URL (leave unset for the embedded SQLite database)' })
      .optional(),
    description: 'Postgres connection URL (`postgres://user:pass@host:5432/db`). Unset: the embedded SQLite database at `SQLITE_PATH`.',
    secret: true,
  }),
  databaseSchema: setting({
    env: 'DATABASE_SCHEMA',
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { message: 'expected a Postgres schema name' })
      .optional(),
    description: 'Postgres schema for the staging tables (unset: the connection default, normally `public`).',
  }),
  databaseMaxConnections: setting({
    env: 'DATABASE_MAX_CONNECTIONS',
    schema: z.coerce.number().int().min(2),
    default: '20',
    description:
      "Postgres connections `serve` opens at most on this host, divided between its `WEB_CONCURRENCY` workers (each at least 2), each process keeping its share in one pool (knex on node-postgres) that list pages and everything else run on; more than about twice the database host's cores serve no more pages (docs/scaling-out.md). Keep replicas × this under the server's `max_connections` (100 by default) with room for syncs and maintenance. Other commands open up to this many each.",
  }),
  sqlitePath: setting({
    env: 'SQLITE_PATH',
    schema: z.string().min(1),
    default: './data/gateway.sqlite',
    description: 'File of the embedded SQLite database (used when `DATABASE_URL` is unset).',
  }),
  databaseConnectTimeoutMs: setting({
    env: 'DATABASE_CONNECT_TIMEOUT_MS',
    schema: positiveInt,
    default: '5000',
    description:
      'Postgres: how long opening a connection may take (TCP, TLS, start-up, authentication), in every command. Past it the attempt fails, and a request that needed the connection answers 503 `SERVICE_UNAVAILABLE` with `Retry-After`.',
  }),
  databaseStatementTimeoutMs: setting({
    env: 'DATABASE_STATEMENT_TIMEOUT_MS',
    schema: z.coerce.number().int().min(0),
    default: '10000',
    description:
      "How long a statement of `serve` may take (`0`: no limit). Postgres: the serving sessions' `statement_timeout` (the server cancels the statement); a server that has not answered a second later (stopped, or the network lost) is not waited for, and the connection is dropped; a request waits at most this plus a second, plus `DATABASE_CONNECT_TIMEOUT_MS`, for a free connection. SQLite: how long a serving read waits for a lock (at most 5 s). Either way the request answers 503 `SERVICE_UNAVAILABLE` with `Retry-After`. Syncs, migrations and other commands are not bound by it: their bulk statements may rightly take longer.",
  }),
  readinessTimeoutMs: setting({
    env: 'READINESS_TIMEOUT_MS',
    schema: positiveInt,
    default: '2000',
    description:
      "`/readyz` answers 503 (with `Retry-After`) when the database has not answered its check within this time; keep it under the probe's own timeout (Caddy's `health_timeout`, Kubernetes' `timeoutSeconds`), so the probe reads an answer rather than a timeout.",
  }),
} as const;
