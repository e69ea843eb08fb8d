import { z } from 'zod';

/**
 * Every setting of the gateway, in one place: the environment variable that sets it, its
 * default, and what it does. `loadConfig` reads them, the settings table of docs/settings.md is checked
 * against them by a test, and nothing else in `src/` reads `process.env`.
 */
export interface SettingSpec<T extends z.ZodType = z.ZodType> {
  env: string;
  schema: T;
  /** Shown in docs/settings.md; `undefined` means the setting has no default (it is optional or secret). */
  default?: string;
  description: string;
  secret?: boolean;
}

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
/** `auto` (the gateway decides from the machine) or a positive count. */
const autoOrCount = () =>
  z
    .string()
    .regex(/^(auto|[1-9]\d*)$/, { message: 'expected auto or a positive integer' })
    .transform((v): 'auto' | number => (v === 'auto' ? 'auto' : Number(v)));
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' }).transform((v) => v === 'true' || v === '1' || v === 'yes');
/** A comma-separated list in the environment, an array in the config. */
const list = z
  .string()
  .optional()
  .transform((s) =>
    (s ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0),
  );
const url = z.url({ message: 'expected an absolute URL such as https://gateway.example.com' });
/** A DNS name (a trailing dot allowed), an IPv4 address, or an IPv6 address in brackets; no port. */
const HOST_NAME = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)$/;

function setting<T extends z.ZodType>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}

export const settings = {
  port: setting({ env: 'PORT', schema: port, default: '3000', description: 'TCP port the gateway listens on.' }),
  host: setting({ env: 'HOST', schema: z.string().min(1), default: '0.0.0.0', description: 'Interface the gateway binds to.' }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'pino log level.',
  }),
  logFormat: setting({
    env: 'LOG_FORMAT',
    schema: z.enum(['auto', 'json', 'pretty'], { message: 'expected auto, json or pretty' }),
    default: 'auto',
    description: 'Log lines as JSON (for collectors) or as readable text (pino-pretty); `auto`: readable when the output is a terminal, JSON otherwise.',
  }),
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
  blobStore: setting({
    env: 'BLOB_STORE',
    schema: z.enum(['directory', 'database'], { message: 'expected directory or database' }),
    default: 'directory',
    description:
      'Where binary file content is kept: `directory` (content-addressed files under `BLOB_DIR`) or `database` (in the staging database, in 64 KiB chunks: for a gateway and a sync that share a database but no folder).',
  }),
  blobDir: setting({
    env: 'BLOB_DIR',
    schema: z.string().min(1),
    default: './data/blobs',
    description: 'Directory of the content-addressed blob store that holds binary file content (with `BLOB_STORE=directory`).',
  }),
  apiKeys: setting({
    env: 'GATEWAY_API_KEY',
    schema: list,
    description:
      'API key(s) the platform sends in `Authorization` (bare or `Bearer`). Comma-separate several keys to rotate without downtime. Unset outside production: a random key is generated once and written to `<data dir>/dev-api-key`.',
    secret: true,
  }),
  nodeEnv: setting({
    env: 'NODE_ENV',
    schema: z.enum(['development', 'production', 'test']),
    default: 'development',
    description:
      'In `production` the gateway refuses to start without `GATEWAY_API_KEY`, or without `PUBLIC_BASE_URL` or `ALLOWED_HOSTS` (links must not follow whatever `Host` a client sends), and never loads demo content.',
  }),
  publicBaseUrl: setting({
    env: 'PUBLIC_BASE_URL',
    schema: url.optional(),
    description:
      "Public base URL of the gateway (`https://gateway.example.com`), used for `@odata.nextLink` and `@odata.context`. Unset: derived from each request's host (see `TRUST_PROXY`), which in production must then be one of `ALLOWED_HOSTS`.",
  }),
  allowedHosts: setting({
    env: 'ALLOWED_HOSTS',
    schema: list.refine((hosts) => hosts.every((h) => HOST_NAME.test(h)), {
      message: 'expected comma-separated host names without ports, such as gateway.example.com,10.0.0.5',
    }),
    description:
      'Host names the gateway answers to, comma-separated (`gateway.example.com`; any port, any case). The host of `PUBLIC_BASE_URL` is allowed too. A request for another host (its `Host` header, or `X-Forwarded-Host` from a trusted proxy) is refused with 400, except `/healthz` and `/readyz`. Unset: any host, and links follow it (convenient in development; in production set this or `PUBLIC_BASE_URL`).',
  }),
  trustProxy: setting({
    env: 'TRUST_PROXY',
    schema: z.string().min(1),
    default: 'false',
    description:
      "Express `trust proxy` value: `false`, `true`, a hop count, or comma-separated addresses/subnets. Lets links carry the proxy's `X-Forwarded-Proto`/`-Host`.",
  }),
  pageSizeDefault: setting({
    env: 'PAGE_SIZE_DEFAULT',
    schema: positiveInt,
    default: '100',
    description: 'Page size when a request has no `$top`.',
  }),
  pageSizeMax: setting({
    env: 'PAGE_SIZE_MAX',
    schema: positiveInt,
    default: '1000',
    description: 'Ceiling that `$top` is clamped to (a larger `$top` is not an error; the page is just shorter).',
  }),
  includeHtmlBodyInList: setting({
    env: 'INCLUDE_HTML_BODY_IN_LIST',
    schema: bool,
    default: 'false',
    description: 'Also send `content.body` of HTML files in `/v1/files` lists (the platform reads it from `/v1/files/{id}`; off saves payload).',
  }),
  skipTokenSecret: setting({
    env: 'SKIPTOKEN_SECRET',
    schema: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    description:
      'HMAC secret that signs `$skiptoken` cursors. Unset: a random secret is created once and kept in the staging database, so every replica on the same database shares it.',
    secret: true,
  }),
  demoContent: setting({
    env: 'DEMO_CONTENT',
    schema: z.enum(['auto', 'off']),
    default: 'auto',
    description: '`auto`: on start-up, load the bundled demo corpus into an empty embedded SQLite database. `off`: never.',
  }),
  tlsCertFile: setting({
    env: 'TLS_CERT_FILE',
    schema: z.string().min(1).optional(),
    description:
      'PEM certificate (chain) file: with `TLS_KEY_FILE`, the gateway serves HTTPS itself (and sends HSTS). Unset: plain HTTP, for running behind a TLS-terminating proxy.',
  }),
  tlsKeyFile: setting({
    env: 'TLS_KEY_FILE',
    schema: z.string().min(1).optional(),
    description: 'PEM private key file for `TLS_CERT_FILE`.',
    secret: true,
  }),
  oauthClients: setting({
    env: 'OAUTH_CLIENTS',
    schema: list,
    description:
      'OAuth 2.0 client-credentials clients, comma-separated `client_id:secret_hash` (hash with `content-gateway hash-secret`). Set to enable `POST /oauth2/token`; API keys keep working.',
    secret: true,
  }),
  oauthSigningKey: setting({
    env: 'OAUTH_SIGNING_KEY',
    schema: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    description: 'HMAC key (HS256) that signs issued access tokens; required with `OAUTH_CLIENTS`. Every replica needs the same key.',
    secret: true,
  }),
  oauthTokenTtlSeconds: setting({
    env: 'OAUTH_TOKEN_TTL_SECONDS',
    schema: z.coerce.number().int().min(60).max(86_400),
    default: '3600',
    description: 'Lifetime of issued access tokens (`expires_in`).',
  }),
  oauthAudience: setting({
    env: 'OAUTH_AUDIENCE',
    schema: z.string().min(1).optional(),
    description:
      "Audience (`aud`) and issuer (`iss`) of issued tokens; tokens for another audience are refused. Unset: this deployment's own, so another deployment given the same `OAUTH_SIGNING_KEY` takes none of its tokens: `PUBLIC_BASE_URL` when set, else a name derived from the `$skiptoken` secret (which every replica on one database shares). Set the same value on deployments that must take each other's tokens.",
  }),
  oauthTokenRateLimit: setting({
    env: 'OAUTH_TOKEN_RATE_LIMIT',
    schema: z.coerce.number().int().min(0),
    default: '30',
    description:
      "`POST /oauth2/token` requests each caller's address, and each client id, may make per minute; beyond it, 429 (`slow_down`) with `Retry-After`, before any secret is checked. The platform asks for a token about once an hour. `0`: no limit.",
  }),
  oauthTokenConcurrency: setting({
    env: 'OAUTH_TOKEN_CONCURRENCY',
    schema: autoOrCount(),
    default: 'auto',
    description:
      'Client secrets checked at once (scrypt: a CPU-bound job on the thread pool that also reads blobs for downloads); `auto`: one less than the CPUs, at least 1 and at most 2. Up to 64 more token requests wait up to a second for their turn; what finds none is answered 503 (`temporarily_unavailable`) with `Retry-After`, so a flood of token requests never starves serving.',
  }),
  rateLimitRequests: setting({
    env: 'RATE_LIMIT_REQUESTS',
    schema: z.coerce.number().int().min(0),
    default: '300000',
    description:
      'Requests each client (API key or OAuth client) may make per window (failed authentications have a budget of their own, `AUTH_FAILURE_LIMIT`); beyond it, 429 with `Retry-After`. Every authenticated `/v1` answer carries truthful `X-RateLimit-Limit`/`-Remaining`/`-Reset`, which the platform reads to pace itself before it is refused. The default (5,000 a second over a minute) is above what one gateway process serves (about 3,000 a second on a small VM), so even a crawl at full speed keeps over 30 % of it and is never paced. `0` turns rate limiting and the headers off.',
  }),
  rateLimitWindowSeconds: setting({
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    schema: z.coerce.number().int().min(1),
    default: '60',
    description: 'Length of the rate-limit window (`X-RateLimit-Reset` counts down to its end).',
  }),
  authFailureLimit: setting({
    env: 'AUTH_FAILURE_LIMIT',
    schema: z.coerce.number().int().min(0),
    default: '30',
    description:
      "Failed authentications each caller's address (as `TRUST_PROXY` makes it) may make per minute: `/v1` requests with a missing or wrong key or token, and `POST /oauth2/token` requests with a wrong client. Beyond it they are answered 429 (`RATE_LIMIT_EXCEEDED`, or `slow_down` at the token endpoint) with `Retry-After` instead of 401; the 401s and 429s carry this budget's `X-RateLimit-*`. Only failures spend it, so a client presenting a valid key or token is never slowed, whatever its address has failed. Counted where `RATE_LIMIT_REQUESTS` is (this gateway, or `REDIS_URL`). `0`: no limit.",
  }),
  maxConcurrentRequests: setting({
    env: 'MAX_CONCURRENT_REQUESTS',
    schema: z.coerce.number().int().min(0),
    default: '64',
    description: 'In-flight `/v1` requests above which the gateway sheds load with 503 and `Retry-After` instead of queueing (`0`: no cap).',
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    schema: z
      .string()
      .regex(/^rediss?:\/\//, { message: 'expected a redis:// or rediss:// URL' })
      .optional(),
    description:
      'Redis that replicas share rate-limit counters through (`redis://:password@host:6379/0`; `rediss://` for TLS), so `RATE_LIMIT_REQUESTS` and `OAUTH_TOKEN_RATE_LIMIT` hold across all of them. Unset: counted in this gateway (across its `WEB_CONCURRENCY` workers). Unreachable: each process counts on its own until it answers again (docs/scaling-out.md).',
    secret: true,
  }),
  redisKeyPrefix: setting({
    env: 'REDIS_KEY_PREFIX',
    schema: z.string().min(1).max(100),
    default: 'content-gateway:',
    description: 'Prefix of every key the gateway keeps in `REDIS_URL` (gateways that must not share limits need different prefixes).',
  }),
  webConcurrency: setting({
    env: 'WEB_CONCURRENCY',
    schema: autoOrCount(),
    default: 'auto',
    description:
      'Worker processes that serve (one event loop each; a primary process migrates, then starts and supervises them). `auto`: one per CPU with `NODE_ENV=production`, else 1 (a single process, no primary). Limits hold across workers: the rate limit is counted in the primary (or in `REDIS_URL`), `MAX_CONCURRENT_REQUESTS` is divided between them.',
  }),
  metricsToken: setting({
    env: 'METRICS_TOKEN',
    schema: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    description: 'Bearer token that `GET /metrics` (Prometheus) requires. Unset: `/metrics` is not served.',
    secret: true,
  }),
  headersTimeoutMs: setting({
    env: 'HEADERS_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '10000',
    description: 'A client must send its request headers within this time (slow-loris protection).',
  }),
  requestTimeoutMs: setting({
    env: 'REQUEST_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '120000',
    description:
      'A client must send its whole request (headers and any body) within this time. It does not bound the answer: see `STALL_TIMEOUT_MS` and `RESPONSE_TIMEOUT_MS`.',
  }),
  keepAliveTimeoutMs: setting({
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '65000',
    description: "Idle keep-alive connections are closed after this time (keep it above your load balancer's idle timeout).",
  }),
  stallTimeoutMs: setting({
    env: 'STALL_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '60000',
    description:
      "A connection with a request in progress on which no byte moves for this long (a client that stopped reading its download, an answer that does not come) is closed, which frees its `MAX_CONCURRENT_REQUESTS` slot; a download that stalls midway goes within twice this time (Node spares a write that moved at all since its last look). Idle keep-alive connections are `KEEP_ALIVE_TIMEOUT_MS`'s business.",
  }),
  responseTimeoutMs: setting({
    env: 'RESPONSE_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '900000',
    description:
      'A `/v1` answer, a download included, must be sent whole within this time of being admitted; otherwise its connection is cut and its slot freed (a client that reads, but too slowly to ever finish). The default, 15 minutes, carries a 100 MB file over a 1 Mbit/s link (about 14 minutes); the platform indexes files up to 25 MB.',
  }),
  clientConcurrencyShare: setting({
    env: 'CLIENT_CONCURRENCY_SHARE',
    schema: z.coerce.number().gt(0).max(1),
    default: '0.75',
    description:
      "Share of `MAX_CONCURRENT_REQUESTS` (of each worker's part of it) one client may hold at once: at least one request, and one fewer than the cap, so another client always gets in; beyond it, that client is answered 503 with `Retry-After` while others are served. A client is an address: the socket's, or the forwarded one that `TRUST_PROXY` trusts (behind a proxy that is not trusted, every request is the proxy's). `1`: no share.",
  }),
  maxConnections: setting({
    env: 'MAX_CONNECTIONS',
    schema: z.coerce.number().int().min(0),
    default: '1000',
    description:
      'Open connections (idle keep-alive ones included) above which a new connection is closed at once, unanswered, and a warning logged (at most once a minute); divided between `WEB_CONCURRENCY` workers. `0`: no cap.',
  }),
  shutdownGraceMs: setting({
    env: 'SHUTDOWN_GRACE_MS',
    schema: z.coerce.number().int().min(0),
    default: '10000',
    description: "On SIGTERM, requests in flight get this long to finish before their connections are cut (keep it below your orchestrator's stop timeout).",
  }),
  maxUrlLength: setting({
    env: 'MAX_URL_LENGTH',
    // The gateway's own longest link must pass: `/v1/files/{id}/permissions` with a 1,024-character
    // id, `$top` and a 4,096-character `$skiptoken` is under 5,200 (test/unit/load-config.test.ts).
    schema: z.coerce.number().int().min(6144),
    default: '8192',
    description:
      "Longer request URLs (path and query) are refused with 414. At least 6144, so that every link the gateway sends (an id of up to 1,024 characters, a `$skiptoken` of up to 4,096) passes. (A request line and headers over 16 KB together are refused by Node's parser first, with 431.)",
  }),
  tombstoneRetentionDays: setting({
    env: 'TOMBSTONE_RETENTION_DAYS',
    schema: z.coerce.number().min(0),
    default: '30',
    description: 'How long deleted files stay listed as `status: deleted` tombstones before a full sync purges them.',
  }),
  syncMaxDeleteShare: setting({
    env: 'SYNC_MAX_DELETE_SHARE',
    schema: z.coerce.number().min(0).max(1),
    default: '0.5',
    description:
      "Mass-deletion guard: a full sync that would delete more than this share of a source's active files stops without deleting (override with `--allow-mass-delete`). It applies to sources of at least 10 active files: a smaller one may lose any share.",
  }),
  syncMaxFailures: setting({
    env: 'SYNC_MAX_FAILURES',
    schema: z.coerce.number().int().min(0),
    default: '100',
    description: 'Error budget: more failed items than this abort a sync before its sweep.',
  }),
  syncMaxFailureRatio: setting({
    env: 'SYNC_MAX_FAILURE_RATIO',
    schema: z.coerce.number().min(0).max(1),
    default: '0.2',
    description: 'Error budget: a failed share above this (after 50 items) aborts a sync before its sweep.',
  }),
  syncBatchSize: setting({
    env: 'SYNC_BATCH_SIZE',
    schema: positiveInt,
    default: '500',
    description: 'Items a sync writes per transaction.',
  }),
  accessPolicies: setting({
    env: 'ACCESS_POLICIES',
    schema: list
      .refine((pairs) => pairs.every((p) => /^[a-z][a-z0-9-]{0,31}=.+$/.test(p)), {
        message: 'expected <adapter>=<policy file> pairs separated by commas, such as sql=/etc/gateway/sql-policy.yaml',
      })
      .transform((pairs) => Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) as Record<string, string>),
    description:
      'Access policies per source: `<adapter>=<policy file>` pairs, comma-separated (docs/access-policies.md). `sync --policy` overrides it for one adapter.',
  }),
} as const;

export type Settings = typeof settings;
export type Config = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

/** What each of `keys` is when its variable is unset: its default, read by its own schema. */
export function settingDefaults<K extends keyof Settings>(keys: readonly K[]): Pick<Config, K> {
  return Object.fromEntries(keys.map((key) => [key, settings[key].schema.parse(settings[key].default)])) as Pick<Config, K>;
}
