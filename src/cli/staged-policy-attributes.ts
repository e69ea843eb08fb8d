import fs from 'node:fs';
import type { Config } from '../config/config-schema';
import { nearestName } from '../lib/nearest-name';
import { parseJsonObject } from '../lib/parse-json-object';
import { DOCUMENT_CLASS_PREFIX, USER_CLASS_PREFIX } from '../policies/policy-compilation';
import { policyProjections } from '../policies/policy-projection';
import type { Policy } from '../policies/policy-types';
import { createDb } from '../staging/database/create-db';

type Names = { user: Set<string>; doc: Set<string> };

/**
 * The attribute names staged policy classes record (what earlier syncs' policies read and the
 * users and documents had), or undefined when there is no staging database to read: `policy
 * check` creates none and migrates nothing.
 */
async function stagedNames(config: Config): Promise<Names | undefined> {
  if (!config.databaseUrl && (config.sqlitePath === ':memory:' || !fs.existsSync(config.sqlitePath))) return undefined;
  const db = createDb({
    databaseUrl: config.databaseUrl,
    sqlitePath: config.sqlitePath,
    ...(config.databaseSchema ? { searchPath: config.databaseSchema } : {}),
  });
  try {
    const rows = (await db('groups')
      .where('native_id', 'like', `${USER_CLASS_PREFIX}%`)
      .orWhere('native_id', 'like', `${DOCUMENT_CLASS_PREFIX}%`)
      .select('metadata')) as Array<{ metadata: string | null }>;
    const names: Names = { user: new Set(), doc: new Set() };
    for (const row of rows) {
      const policyClass = parseJsonObject(row.metadata)?.policyClass as { of?: string; subject?: { attributes?: Record<string, unknown> } } | undefined;
      const into = policyClass?.of === 'users' ? names.user : policyClass?.of === 'documents' ? names.doc : undefined;
      for (const name of Object.keys(policyClass?.subject?.attributes ?? {})) into?.add(name);
    }
    return names.user.size + names.doc.size > 0 ? names : undefined;
  } catch {
    return undefined; // no staging schema yet, or unreachable: nothing to compare with
  } finally {
    await db.destroy();
  }
}

/**
 * Warnings for `policy check`: each attribute the policy reads that no staged class records while
 * a staged one is close (a likely misspelling, which would grant nothing). Only close names are
 * reported: an attribute no earlier policy read is not staged at all; a full sync checks for sure.
 */
export async function misspeltAttributeWarnings(policy: Policy, config: Config): Promise<string[]> {
  const staged = await stagedNames(config);
  if (!staged) return [];
  const reads = policyProjections(policy);
  const warnings: string[] = [];
  for (const root of ['user', 'doc'] as const) {
    for (const name of reads[root].attributes.keys()) {
      const nearest = staged[root].has(name) ? undefined : nearestName(name, staged[root]);
      if (nearest)
        warnings.push(
          `warning: ${root}.${name}: no staged ${root === 'doc' ? 'document' : 'user'} has it; did you mean ${root}.${nearest}? (a test of an absent attribute is never true; a full sync with this policy warns of every attribute none has)`,
        );
    }
  }
  return warnings;
}
