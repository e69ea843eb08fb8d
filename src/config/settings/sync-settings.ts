import { z } from 'zod';
import { setting } from './setting-spec';
import { positiveInt, list, publicUrl } from './setting-values';

/** Syncs: tombstones, guards against mass deletion and failures, batch size, access policies. */
export const syncSettings = {
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
  webhooksPublicUrl: setting({
    env: 'WEBHOOKS_PUBLIC_URL',
    schema: publicUrl.optional(),
    description:
      "The gateway's base URL as the work-management service reaches it (`https://gateway.example.com`). Set, `serve` receives the work-management adapter's webhooks at `<this>/webhooks/<source>?resource=<gid>` and each delivery asks for an incremental sync (with Postgres: a job for `sync-worker`); `webhooks register work-management` registers that URL at the service. Unset: no webhooks (polling only).",
  }),
  syncQueueSchema: setting({
    env: 'SYNC_QUEUE_SCHEMA',
    schema: z.string().regex(/^[a-z_][a-z0-9_]{0,49}$/, { message: 'expected a Postgres schema name such as pgboss' }),
    default: 'pgboss',
    description: "With Postgres: the schema of the sync job queue (pg-boss) `sync-worker` runs syncs from, created on a worker's first start.",
  }),
  syncJobRetries: setting({
    env: 'SYNC_JOB_RETRIES',
    schema: z.coerce.number().int().min(0),
    default: '5',
    description:
      'With Postgres: how often `sync-worker` retries a failed sync job (with exponential backoff) before it goes to the dead-letter queue (`queue` lists it).',
  }),
  syncJobRetryDelaySeconds: setting({
    env: 'SYNC_JOB_RETRY_DELAY_SECONDS',
    schema: positiveInt,
    default: '60',
    description:
      "With Postgres: the first retry's delay of a failed sync job (each further retry waits about twice as long), and how long a job that finds its source being synced waits before it is tried again (a webhook-asked run of `serve` too, with SQLite or Postgres).",
  }),
  syncJobTimeoutSeconds: setting({
    env: 'SYNC_JOB_TIMEOUT_SECONDS',
    schema: positiveInt.max(86_399),
    default: '21600',
    description: 'With Postgres: the longest a sync job may run (at most 24 h); one still running then is failed and retried.',
  }),
  syncHeartbeatSeconds: setting({
    env: 'SYNC_HEARTBEAT_SECONDS',
    schema: positiveInt,
    default: '60',
    description:
      "A running sync renews its source's lock (its heartbeat) every third of this; a lock not renewed for this long was a dead process's. With Postgres, another `sync-worker` then fails that run's job, which is retried and resumes from the source's checkpoint.",
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
