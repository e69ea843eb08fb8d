import { z } from 'zod';
import { setting } from './setting-spec';
import { positiveInt, list } from './setting-values';

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
