import { normalizeEmail } from '../../lib/normalize-email';
import { EVERYONE, type AccessEntry, type Principal, type UserRecord } from '../adapter';
import { RestExpressionError, RestExpressionLimitError, type Expressions } from './rest-expressions';
import type { PrincipalMap, UsersStream } from './rest-manifest';

/** A record the manifest's mapping cannot turn into what the contract needs; names the field, never the values. */
export class RestRecordError extends Error {
  override readonly name = 'RestRecordError';
}

/** How users are named in members and access lists: by the source's id, or by email (then users are keyed by it). */
export type Dialect = 'id' | 'email';

export async function requiredText(expressions: Expressions, source: string, record: unknown, field: string): Promise<string> {
  const value = await expressions.text(source, record);
  if (value === undefined || value === '') throw new RestRecordError(`${field} (${JSON.stringify(source)}) gives nothing`);
  return value;
}

export async function optionalText(expressions: Expressions, source: string | undefined, record: unknown): Promise<string | undefined> {
  if (source === undefined) return undefined;
  const value = await expressions.text(source, record);
  return value === '' ? undefined : value;
}

/** A user: its id (its email, lower-cased, in the email dialect), email, name and active state (active unless `active` says false). */
export async function toUser(expressions: Expressions, map: UsersStream['map'], record: unknown, dialect: Dialect): Promise<UserRecord> {
  const email = await requiredText(expressions, map.email, record, 'streams.users.map.email');
  const nativeId = dialect === 'email' ? normalizeEmail(email) : await requiredText(expressions, map.id, record, 'streams.users.map.id');
  const fullName = await optionalText(expressions, map.name, record);
  const active = map.active === undefined ? true : (await expressions.evaluate(map.active, record)) === true;
  return { nativeId, email, active, ...(fullName !== undefined ? { fullName } : {}) };
}

/**
 * An access entry or group member: `type` gives user, group or everyone (any case). Anything else
 * throws: an entry that cannot be understood fails its list rather than being dropped from it.
 * An entry whose type or id the mapping cannot read (a list or an object where a text is expected,
 * an expression failing on its values) is such an entry (RestRecordError), not a transient failure
 * that would keep the staged list: only an expression stopped by its limits is left as it is.
 */
export async function toPrincipal(expressions: Expressions, map: PrincipalMap, item: unknown, dialect: Dialect, what: string): Promise<AccessEntry> {
  try {
    const type = (await expressions.text(map.type, item))?.toLowerCase();
    if (type === 'everyone') return EVERYONE;
    if (type !== 'user' && type !== 'group')
      throw new RestRecordError(`${what}: an entry's type is ${type === undefined ? 'missing' : `"${type}"`}, not user, group or everyone`);
    const id = await requiredText(expressions, map.id, item, `${what}.map.id`);
    const nativeId = type === 'user' && dialect === 'email' ? normalizeEmail(id) : id;
    return { type: type === 'user' ? 'USER' : 'GROUP', nativeId };
  } catch (error) {
    if (error instanceof RestExpressionError && !(error instanceof RestExpressionLimitError)) throw new RestRecordError(`${what}: ${error.message}`);
    throw error;
  }
}

/** Entries in their first order, each once; `EVERYONE` alone stands for the rest. */
export function dedupe(entries: readonly AccessEntry[]): AccessEntry[] {
  if (entries.some((e) => e.type === 'EVERYONE')) return [EVERYONE];
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = `${e.type}:${(e as Principal).nativeId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A group member: a user or a group, never everyone (a member list names members). */
export function asMember(entry: AccessEntry, what: string): Principal {
  if (entry.type === 'EVERYONE') throw new RestRecordError(`${what}: "everyone" cannot be a group member`);
  return entry;
}
