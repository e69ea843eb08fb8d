import type { MockClient } from '../mock-client';

/** A person of the scenario, with the spelling each source gives their email. */
export interface ScenarioPerson {
  /** The work-management user's gid, when the person is one. */
  gid?: string;
  email: string;
}

/** Spellings of one address the normalisation must see through: upper case, a full-width first letter, spaces. */
export function upperSpelling(email: string): string {
  return email.toUpperCase();
}

export function wideSpelling(email: string): string {
  const first = email.codePointAt(0) ?? 0;
  // ASCII letters and digits have full-width forms 0xFEE0 above them, which NFKC maps back.
  const wide = first > 0x20 && first < 0x7f ? String.fromCodePoint(first + 0xfee0) : email.charAt(0);
  return ` ${wide}${email.slice(1)} `;
}

/**
 * The people the filesystem directory and the SQL database share with the work-management
 * organization: its first `count` active users by gid (the mock's directory, read over its API),
 * so people appear in two or three sources under different spellings of their email.
 */
export async function workManagementPeople(client: MockClient, workspace: string, count: number): Promise<ScenarioPerson[]> {
  const users = await client.list<{ gid: string; email?: string }>(`/users?workspace=${workspace}&opt_fields=email`);
  const people = users.filter((u) => typeof u.email === 'string' && u.email.includes('@')).sort((a, b) => (a.gid < b.gid ? -1 : a.gid > b.gid ? 1 : 0));
  if (people.length < count) throw new Error(`the work-management organization has ${people.length} users with an email; the scenario needs ${count}`);
  return people.slice(0, count).map((u) => ({ gid: u.gid, email: u.email as string }));
}
