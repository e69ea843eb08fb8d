import { EffectiveAccess, type AccessInput } from '../../src/conformance/access/effective-access';
import type { Principal } from '../../src/conformance/crawl/crawl-record';

interface Page<T> {
  value: T;
  '@odata.nextLink'?: string;
}

/** Every item of a collection, following `@odata.nextLink` (small pages, so paging is exercised). */
async function all<T>(url: string, key: string, pick: (value: unknown) => T[]): Promise<T[]> {
  const out: T[] = [];
  let next: string | undefined = `${url}${url.includes('?') ? '&' : '?'}$top=2`;
  while (next) {
    const res = await fetch(next, { headers: { Authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`GET ${next}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as Page<unknown>;
    out.push(...pick(page.value));
    next = page['@odata.nextLink'];
  }
  return out;
}

const list = <T>(value: unknown): T[] => value as T[];

export interface CrawledAccess extends AccessInput {
  users: Array<{ id: string; email: string; state: string }>;
}

/**
 * Reads users, groups with their members and active files with their access lists the way the
 * platform does, ids pasted into paths raw: what the platform's access model is built from.
 */
export async function crawlAccess(baseUrl: string, key: string): Promise<CrawledAccess> {
  const users = await all<{ id: string; primary_email_addr: string; state: string }>(`${baseUrl}/v1/users`, key, list);
  const groups = await all<{ id: string; name?: string }>(`${baseUrl}/v1/groups`, key, list);
  const files = await all<{ id: string; name: string; status: string }>(`${baseUrl}/v1/files`, key, list);
  const members = async (id: string): Promise<Principal[]> =>
    (await all<{ type: string; id: string }>(`${baseUrl}/v1/groups/${id}/members`, key, list)).map((m) => ({ type: m.type, id: m.id, action: 'VIEW' }));
  const permissions = async (id: string): Promise<Principal[]> =>
    all<Principal>(`${baseUrl}/v1/files/${id}/permissions`, key, (value) => (value as { permissions: Principal[] }).permissions);
  return {
    users: users.map((u) => ({ id: u.id, email: u.primary_email_addr, state: u.state })),
    groups: await Promise.all(groups.map(async (g) => ({ id: g.id, name: g.name, members: { entries: await members(g.id) } }))),
    files: await Promise.all(
      files.map(async (f) => ({ id: f.id, name: f.name, status: f.status, permissions: f.status === 'deleted' ? [] : await permissions(f.id) })),
    ),
  };
}

/** The emails of the active users a crawl of the gateway at `baseUrl` says can see `fileId` (ids where a user has none), sorted. */
export async function emailsWhoCanSee(baseUrl: string, key: string, fileId: string): Promise<string[]> {
  const who = new EffectiveAccess(await crawlAccess(baseUrl, key)).whoCanSee(fileId);
  return (who?.users ?? []).map((u) => u.email ?? u.id).sort();
}

/** What a crawl of the gateway at `baseUrl` says each active user can see: email -> file ids, sorted. */
export async function filesSeenByEmail(baseUrl: string, key: string): Promise<Record<string, string[]>> {
  const crawl = await crawlAccess(baseUrl, key);
  const access = new EffectiveAccess(crawl);
  return Object.fromEntries(
    crawl.users.filter((u) => u.state === 'Active').map((u) => [u.email, (access.whatCanSee(u.email)?.files ?? []).map((f) => f.id).sort()]),
  );
}
