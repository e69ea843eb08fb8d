import crypto from 'node:crypto';
import { questionAbout } from './code-names';

/** A person of the organization, as the scenario knows them. */
export interface Asker {
  /** The work-management user gid (the oracle's key). */
  user: string;
  email: string;
}

export interface PlannedQuestion {
  asker: Asker;
  /** The task the question targets (its gid). */
  task: string;
  text: string;
  /** Whether the oracle lets the asker see the task when the question is planned. */
  visible: boolean;
}

/** task gid → users who may see it (the oracle's verdict). */
export type Visibility = ReadonlyMap<string, readonly string[]>;

/** A stable pseudo-random order of `items` for a key (the same seed always asks the same questions). */
export function shuffled<T>(items: readonly T[], key: string, id: (item: T) => string): T[] {
  const rank = (item: T): string =>
    crypto
      .createHash('sha256')
      .update(`${key}/${id(item)}`)
      .digest('hex');
  return [...items]
    .map((item) => ({ item, r: rank(item) }))
    .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
    .map((x) => x.item);
}

/**
 * For every asker, `perUser` questions about code-named tasks: half about tasks the oracle says
 * they may see (the answer must cite it), half about tasks they may not (the answer must not);
 * when one kind runs out, the other fills in.
 */
export function planQuestions(
  askers: readonly Asker[],
  visibility: Visibility,
  codes: ReadonlyMap<string, string>,
  perUser: number,
  seed: string,
): PlannedQuestion[] {
  const tasks = [...codes.keys()].filter((gid) => visibility.has(gid)).sort();
  const audience = new Map(tasks.map((gid) => [gid, new Set(visibility.get(gid))]));
  const out: PlannedQuestion[] = [];
  for (const asker of askers) {
    const order = shuffled(tasks, `${seed}/questions/${asker.user}`, (gid) => gid);
    const seen = order.filter((gid) => audience.get(gid)?.has(asker.user));
    const unseen = order.filter((gid) => !audience.get(gid)?.has(asker.user));
    const wantSeen = Math.min(seen.length, Math.max(perUser - unseen.length, Math.ceil(perUser / 2)));
    const picked = [
      ...seen.slice(0, wantSeen).map((task) => ({ task, visible: true })),
      ...unseen.slice(0, perUser - wantSeen).map((task) => ({ task, visible: false })),
    ];
    picked.forEach(({ task, visible }, i) => out.push({ asker, task, visible, text: questionAbout(codes.get(task) as string, i + out.length) }));
  }
  return out;
}

/** (user, task) pairs the oracle granted before a change and no longer does (tasks gone included). */
export function revokedPairs(before: Visibility, after: Visibility): Array<{ user: string; task: string }> {
  const out: Array<{ user: string; task: string }> = [];
  for (const [task, users] of before) {
    const now = new Set(after.get(task) ?? []);
    for (const user of users) if (!now.has(user)) out.push({ user, task });
  }
  return out.sort((a, b) => a.task.localeCompare(b.task) || a.user.localeCompare(b.user));
}

/**
 * Questions that probe revoked access: each revoked (user, task) pair asked by that user about
 * that task, at most `limit` of them, spread over the tasks (every task first, then more users).
 */
export function revocationProbes(
  pairs: ReadonlyArray<{ user: string; task: string }>,
  askers: ReadonlyMap<string, Asker>,
  codes: ReadonlyMap<string, string>,
  limit: number,
  seed: string,
): PlannedQuestion[] {
  const byTask = new Map<string, string[]>();
  for (const p of pairs) if (askers.has(p.user) && codes.has(p.task)) byTask.set(p.task, [...(byTask.get(p.task) ?? []), p.user]);
  const queues = [...byTask].map(([task, users]) => ({ task, users: shuffled(users, `${seed}/probes/${task}`, (u) => u) }));
  const out: PlannedQuestion[] = [];
  for (let depth = 0; out.length < limit && queues.some((q) => q.users.length > depth); depth++) {
    for (const q of queues) {
      const user = q.users[depth];
      if (user === undefined || out.length >= limit) continue;
      out.push({ asker: askers.get(user) as Asker, task: q.task, visible: false, text: questionAbout(codes.get(q.task) as string, out.length) });
    }
  }
  return out;
}
