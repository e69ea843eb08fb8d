import { chunks } from '../lib/chunks';
import type { Db } from '../staging/database/create-db';

/** A group a walk reached: the group it was reached from (undefined for a start) and how many steps away. */
export interface Reached {
  from: string | undefined;
  depth: number;
}

/** Ids per `in (...)` list. */
const IDS_PER_STATEMENT = 500;

type Step = (frontier: readonly string[]) => Promise<Array<{ from: string; to: string }>>;

/**
 * Breadth-first over nested groups, one statement per level (per 500 groups), cycle-safe: each
 * group is reached once, by a shortest chain, so the chains it yields are the short explanations.
 */
async function walk(start: readonly string[], step: Step): Promise<Map<string, Reached>> {
  const reached = new Map<string, Reached>(start.map((id) => [id, { from: undefined, depth: 0 }]));
  let frontier = [...reached.keys()];
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const part of chunks(frontier, IDS_PER_STATEMENT))
      for (const { from, to } of await step(part)) {
        if (reached.has(to)) continue;
        reached.set(to, { from, depth });
        next.push(to);
      }
    frontier = next.sort();
  }
  return reached;
}

/** Groups nested (as served: `GROUP` members) in the `start` groups, at any depth; `from` points back toward a start. */
export function groupsBelow(db: Db, start: readonly string[]): Promise<Map<string, Reached>> {
  return walk(
    start,
    async (part) =>
      (await db('group_members')
        .whereIn('group_id', part)
        .andWhere('member_type', 'GROUP')
        .whereNotNull('served_id')
        .orderBy(['group_id', 'served_id'])
        .select('group_id as from', 'served_id as to')) as Array<{ from: string; to: string }>,
  );
}

/** Groups the `start` groups are nested in, at any depth; `from` points back toward a start (toward the user). */
export function groupsAbove(db: Db, start: readonly string[]): Promise<Map<string, Reached>> {
  return walk(
    start,
    async (part) =>
      (await db('group_members')
        .whereIn('member_id', part)
        .andWhere('member_type', 'GROUP')
        .whereNotNull('served_id')
        .orderBy(['member_id', 'group_id'])
        .select('member_id as from', 'group_id as to')) as Array<{ from: string; to: string }>,
  );
}

/** The chain of groups from `id` back to the start it was reached from (`id` first). */
export function chainBack(reached: ReadonlyMap<string, Reached>, id: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = id; at !== undefined; at = reached.get(at)?.from) chain.push(at);
  return chain;
}

/** The groups (of `ids`) listing each account directly as a `USER` member: account id → group ids. */
export async function directGroupsOfAccounts(db: Db, accountIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const part of chunks(accountIds, IDS_PER_STATEMENT)) {
    const rows = (await db('group_members')
      .whereIn('member_id', part)
      .andWhere('member_type', 'USER')
      .orderBy(['member_id', 'group_id'])
      .select('member_id', 'group_id')) as Array<{ member_id: string; group_id: string }>;
    for (const r of rows) out.set(r.member_id, [...(out.get(r.member_id) ?? []), r.group_id]);
  }
  return out;
}
