import type { RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import type { Db } from '../../../src/staging/database/create-db';
import { stagedAccess } from './staged-access';

/**
 * The gateway's access (from staging) against the work-management mock's visibility oracle, for
 * every (user, file) pair: shared by the tests that sync the mock through the real engine.
 */
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;

/** Staging, as the comparison reads it. */
type Staging = { db: Db };

export interface Mismatch {
  file: string;
  missing: string[];
  extra: string[];
}

/** What the oracle says for every object the adapter should serve, by file native id. */
function oracleAccess(m: RunningMock): Map<string, Set<string>> {
  const store = m.mock.model;
  const oracle = m.mock.oracle;
  const org = m.mock.organization.organization;
  const out = new Map<string, Set<string>>();
  for (const task of store.indexes.tasks.values()) {
    if (task.workspace !== org) continue;
    out.set(`task:${task.gid}`, new Set(oracle.visibleTo('task', task.gid) ?? []));
  }
  for (const a of store.indexes.attachments.values()) {
    const workspace = a.parentType === 'task' ? store.indexes.tasks.get(a.parent)?.workspace : store.indexes.projects.get(a.parent)?.workspace;
    if (workspace !== org || a.host !== 'asana' || !SUPPORTED.test(a.name)) continue;
    out.set(`attachment:${a.gid}`, new Set(oracle.visibleTo('attachment', a.gid) ?? []));
  }
  return out;
}

/** Every difference between the gateway's access (from staging) and the oracle's. */
export async function compare(
  m: RunningMock,
  t: Staging,
  source: string,
): Promise<{ mismatches: Mismatch[]; missingFiles: string[]; staleFiles: string[]; pairs: number; files: number }> {
  const staged = await stagedAccess(t.db, source);
  const expected = oracleAccess(m);
  const mismatches: Mismatch[] = [];
  let pairs = 0;
  for (const [file, want] of expected) {
    const got = staged.get(file);
    if (!got) continue;
    pairs += m.mock.oracle.activeUsers(m.mock.organization.organization).length;
    const missing = [...want].filter((u) => !got.has(u)).sort();
    const extra = [...got].filter((u) => !want.has(u)).sort();
    if (missing.length || extra.length) mismatches.push({ file, missing, extra });
  }
  return {
    mismatches,
    missingFiles: [...expected.keys()].filter((f) => !staged.has(f)).sort(),
    staleFiles: [...staged.keys()].filter((f) => !expected.has(f)).sort(),
    pairs,
    files: staged.size,
  };
}

/** A mismatch with the oracle's reasons, for a readable failure. */
function explain(m: RunningMock, mismatch: Mismatch): string {
  const [type, gid] = mismatch.file.split(':') as ['task' | 'attachment', string];
  const reasons = m.mock.oracle.explain(type, gid);
  const why = (u: string) => `${u} (${reasons?.get(u)?.join('; ') ?? 'no reason in the oracle'})`;
  return `${mismatch.file}: missing ${mismatch.missing.map(why).join(', ') || '-'}; extra ${mismatch.extra.join(', ') || '-'}`;
}

export async function expectOracleEquality(m: RunningMock, t: Staging, source: string): Promise<void> {
  const result = await compare(m, t, source);
  expect(result.files).toBeGreaterThan(200);
  expect({ missingFiles: result.missingFiles, staleFiles: result.staleFiles, mismatches: result.mismatches.slice(0, 10).map((x) => explain(m, x)) }).toEqual({
    missingFiles: [],
    staleFiles: [],
    mismatches: [],
  });
  expect(result.pairs).toBeGreaterThan(10_000);
}
