import { EVERYONE, type AccessEntry, type FileRecord, type GroupRecord, type Principal, type UserRecord } from '../adapter';

/*
 * The wiki's records as its REST API returns them, and their PURE mapping to the adapter
 * contract's records: no I/O, so it can be tested with plain objects. Ids stay the wiki's own
 * ("native"): the engine serves them as `example-wiki:<id>`, so two sources never collide.
 */

export interface WikiPage {
  id: string;
  title: string;
  /** Where a reader opens the page in the wiki itself. */
  url: string;
  body_html: string;
  created_at: string;
  updated_at: string;
  author_email: string;
  space: { id: string; name: string };
  /** Readable by everyone in the company; otherwise only by `readers` (user and group ids). */
  public: boolean;
  readers: { users: string[]; groups: string[] };
}

export interface WikiUser {
  id: string;
  email: string;
  display_name: string;
  deactivated: boolean;
}

export interface WikiGroup {
  id: string;
  name: string;
  /** Direct members only, as the wiki lists them. */
  members: Array<{ type: 'user' | 'group'; id: string }>;
}

/**
 * Who may see a page. Every entry is a VIEW grant. A public page is `EVERYONE`, served as the
 * platform's wildcard `GROUP *` (never a list of every user); an empty list means nobody. Name
 * only users and groups this adapter also yields: the contract suite checks it.
 */
export function toAccess(page: WikiPage): AccessEntry[] {
  if (page.public) return [EVERYONE];
  return [
    ...page.readers.users.map((nativeId): Principal => ({ type: 'USER', nativeId })),
    ...page.readers.groups.map((nativeId): Principal => ({ type: 'GROUP', nativeId })),
  ];
}

export function toFileRecord(page: WikiPage): FileRecord {
  return {
    nativeId: page.id,
    name: page.title,
    externalUrl: page.url,
    mimeType: 'text/html',
    // No modified time here: the engine compares content hashes and moves `modified_at` exactly
    // when what is served changes. A listing without bodies would give
    // `{ kind: 'html', version: page.updated_at, load }` to read only changed pages (docs/adapters.md).
    content: { kind: 'html', html: page.body_html },
    access: toAccess(page),
    createdAt: page.created_at,
    createdBy: page.author_email,
    parent: { nativeId: page.space.id, name: page.space.name },
  };
}

/**
 * The platform matches people by email, not by a source's user id: give the address the
 * company's identity provider knows. Accounts with one email in several sources are served as one
 * user. A deactivated account stays listed, inactive, like the groups that still name it.
 */
export function toUserRecord(user: WikiUser): UserRecord {
  return { nativeId: user.id, email: user.email, fullName: user.display_name, active: !user.deactivated };
}

/** Direct members only: a nested group is a GROUP member, never expanded (the platform walks it). */
export function toGroupRecord(group: WikiGroup): GroupRecord {
  return {
    nativeId: group.id,
    name: group.name,
    members: group.members.map((m): Principal => ({ type: m.type === 'group' ? 'GROUP' : 'USER', nativeId: m.id })),
  };
}
