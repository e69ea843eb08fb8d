import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Adapter, FileRecord, SyncEvent, UserRecord } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { compilePolicy } from 'content-gateway';
import { policyGrants } from 'content-gateway';
import { parsePolicy } from 'content-gateway';
import type { Policy } from 'content-gateway';
import { createDb } from 'content-gateway';
import { migrateLatest } from 'content-gateway';
import { runSync } from 'content-gateway';
import { measurement, type BenchmarkResult } from './report';
import { seededRandom } from './seeded-random';

export interface PolicyCompileOptions {
  documents: number;
  users: number;
  /** Documents the naive baseline (one group per document, every pair evaluated) is timed on; its time is scaled up. */
  naiveSample: number;
}

const DEFAULTS: PolicyCompileOptions = { documents: 100_000, users: 5_000, naiveSample: 1_000 };
const SOURCE = 'policy-bench';
const DEPARTMENTS = Array.from({ length: 20 }, (_, i) => `dept-${i}`);
const KINDS = ['memo', 'handbook', 'guide', 'secret'];
const ROLES = ['editor', 'manager', 'auditor', 'viewer'];

/** Attribute rules of the kind the issue names: department and clearance, roles, a public tier. */
const POLICY = parsePolicy(`version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-read-handbooks
    roles: [editor]
    allow: doc.kind in ['handbook', 'guide']
  - name: managers-read-their-department
    roles: [manager]
    allow: user.department == doc.department and doc.kind != 'secret'
  - name: public-tier
    allow: doc.level == 0 and not (doc.kind == 'secret')
`);
/** The same policy with one rule tightened: what a policy change re-syncs. */
const CHANGED = parsePolicy(`version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance > doc.level
  - name: editors-read-handbooks
    roles: [editor]
    allow: doc.kind in ['handbook', 'guide']
`);

function corpus(o: PolicyCompileOptions): { users: UserRecord[]; docs: FileRecord[] } {
  const random = seededRandom(17);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const users = Array.from({ length: o.users }, (_, i): UserRecord => ({
    nativeId: `u${i}`,
    email: `user${i}@example.com`,
    active: random() > 0.03,
    attributes: { department: pick(DEPARTMENTS), clearance: Math.floor(random() * 5) },
    roles: ROLES.filter(() => random() < 0.15),
  }));
  const docs = Array.from({ length: o.documents }, (_, i): FileRecord => ({
    nativeId: `d${i}`,
    name: `Document ${i}`,
    externalUrl: `https://intranet.example.com/d/${i}`,
    mimeType: 'text/html',
    content: { kind: 'html', html: `<p>Document ${i}</p>` },
    access: [],
    attributes: { department: pick(DEPARTMENTS), level: Math.floor(random() * 5), kind: pick(KINDS) },
  }));
  return { users, docs };
}

/** The naive compilation: per document, a group of the users the policy grants it (every pair evaluated). */
function naiveCompile(policy: Policy, users: readonly UserRecord[], docs: readonly FileRecord[]): { groups: number; members: number } {
  let groups = 0;
  let members = 0;
  for (const doc of docs) {
    groups++;
    for (const user of users) if (user.active && policyGrants(policy, user, doc)) members++;
  }
  return { groups, members };
}

function memorySource(users: readonly UserRecord[], docs: readonly FileRecord[]): Adapter {
  return {
    name: SOURCE,
    async *full(): AsyncIterable<SyncEvent> {
      for (const user of users) yield { type: 'user', user };
      for (const file of docs) yield { type: 'file', file };
    },
  };
}

async function timedSync(
  dir: string,
  name: string,
  adapter: Adapter,
  policy: Policy | undefined,
  reuse?: ReturnType<typeof createDb>,
): Promise<{ ms: number; db: ReturnType<typeof createDb> }> {
  const db = reuse ?? createDb({ sqlitePath: path.join(dir, `${name}.sqlite`) });
  if (!reuse) await migrateLatest(db);
  const t0 = performance.now();
  const summary = await runSync(
    adapter,
    { db, blobs: new FsBlobStore(path.join(dir, 'blobs')), logger: pino({ level: 'silent' }) },
    { mode: 'full', allowMassDelete: true, ...(policy ? { policy } : {}) },
  );
  const ms = performance.now() - t0;
  if (summary.status !== 'succeeded') throw new Error(`${name} sync ${summary.status}: ${summary.error ?? ''}`);
  return { ms, db };
}

/**
 * 100,000 documents and 5,000 users under attribute and role rules: compile time and group count
 * against the naive one-group-per-document compilation, and sync time into SQLite staging against
 * the same source synced without a policy. Then the policy changes: the re-sync rewrites access
 * lists without reading content, timed against the first sync with the policy.
 */
export async function policyCompile(options: Partial<PolicyCompileOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const { users, docs } = corpus(o);
  const t0 = performance.now();
  const compiled = compilePolicy(POLICY, users, docs);
  const compileMs = performance.now() - t0;
  const sample = docs.slice(0, o.naiveSample);
  const t1 = performance.now();
  const naive = naiveCompile(POLICY, users, sample);
  const naiveMs = ((performance.now() - t1) * docs.length) / sample.length;
  const userGroups = compiled.groups.filter((g) => g.nativeId.startsWith('policy-u-')).length;
  const memberRows = compiled.groups.reduce((n, g) => n + g.members.length, 0);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-bench-'));
  try {
    const plain = await timedSync(
      dir,
      'plain',
      memorySource(
        users,
        docs.map((d) => ({ ...d, access: [{ type: 'EVERYONE' }] })),
      ),
      undefined,
    );
    await plain.db.destroy();
    const withPolicy = await timedSync(dir, 'policy', memorySource(users, docs), POLICY);
    const changed = await timedSync(dir, 'policy', memorySource(users, docs), CHANGED, withPolicy.db);
    await withPolicy.db.destroy();
    const bench = 'policy-compile';
    return {
      name: bench,
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: bench,
          metric: 'compile time (naive: every pair, one group per document)',
          unit: 'ms',
          value: compileMs,
          baseline: naiveMs,
          goal: { on: 'ratio', op: '<=', target: 0.05 },
        }),
        measurement({
          benchmark: bench,
          metric: 'synthesized groups (naive: one per document)',
          unit: 'groups',
          value: compiled.groups.length,
          baseline: docs.length,
          goal: { on: 'ratio', op: '<=', target: 0.01 },
        }),
        measurement({
          benchmark: bench,
          metric: 'sync into SQLite with the policy (baseline: without)',
          unit: 'ms',
          value: withPolicy.ms,
          baseline: plain.ms,
          goal: { on: 'ratio', op: '<=', target: 1.5 },
        }),
        measurement({
          benchmark: bench,
          metric: 're-sync after a policy change (baseline: first sync)',
          unit: 'ms',
          value: changed.ms,
          baseline: withPolicy.ms,
          goal: { on: 'ratio', op: '<=', target: 1 },
        }),
      ],
      notes: [
        `${o.documents} documents, ${o.users} users (${users.filter((u) => u.active).length} active), ${POLICY.rules.length} rules; ${userGroups} user-class and ${compiled.groups.length - userGroups} document-class groups, ${memberRows} member rows`,
        `naive baseline timed on ${sample.length} documents and scaled: ${(naive.members / sample.length).toFixed(0)} direct members per document, so ~${Math.round((naive.members / sample.length) * docs.length)} member rows for ${docs.length} groups`,
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
