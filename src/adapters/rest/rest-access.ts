import { EVERYONE, type AccessEntry } from '../adapter';
import type { Expressions } from './rest-expressions';
import type { AccessSpec, FieldPrincipals, PrincipalListing, PrincipalMap } from './rest-manifest';
import { paginate } from './rest-paginator';
import { dedupe, RestRecordError, toPrincipal, type Dialect } from './rest-records';
import type { RestRequester } from './rest-requester';

/** What resolving access lists needs: the run's requester, expressions, dialect, and the containers read so far. */
export interface AccessDeps {
  requester: RestRequester;
  expressions: Expressions;
  dialect: Dialect;
  signal: AbortSignal;
  maxPages?: number;
  /** Container id → its access, or the error that kept it from being read. */
  containers?: ReadonlyMap<string, readonly AccessEntry[] | Error>;
  /** A child document's parent's access (for `access.parent`). */
  parentAccess?: readonly AccessEntry[];
}

/** Principals from a field of the record: a list, each item mapped; an item that cannot be mapped is noted in `unresolved`. */
export async function principalsFromField(
  field: FieldPrincipals,
  record: unknown,
  deps: AccessDeps,
  what: string,
  unresolved: Error[],
): Promise<AccessEntry[]> {
  return principalsOf(await deps.expressions.list(field.path, record), field.map, deps, what, unresolved);
}

/** A request's principals, read to its paginator's natural end (any failed page throws); an item that cannot be mapped is noted in `unresolved`. */
export async function principalsFromRequest(
  listing: PrincipalListing,
  record: unknown,
  deps: AccessDeps,
  what: string,
  unresolved: Error[],
): Promise<AccessEntry[]> {
  const out: AccessEntry[] = [];
  for await (const page of paginate(deps.requester, listing, { what, signal: deps.signal, record, ...(deps.maxPages ? { maxPages: deps.maxPages } : {}) })) {
    const items: unknown[] = [];
    for (const item of page.records) if (!listing.filter || (await deps.expressions.truth(listing.filter, item))) items.push(item);
    out.push(...(await principalsOf(items, listing.map, deps, what, unresolved)));
  }
  return out;
}

/**
 * An access list the source gave whole but with entries the adapter cannot resolve (a type it does
 * not know, an entry without an id): the document fails rather than guess, and `accessAtMost` (the
 * entries it could resolve) is what the source still grants for certain: the engine narrows the
 * staged access list to it, so nobody the source withdrew keeps the document (fail closed).
 */
export class UnresolvedAccessError extends RestRecordError {
  constructor(
    message: string,
    readonly accessAtMost: readonly AccessEntry[],
  ) {
    super(message);
  }
}

/** Principals from a list of items, each mapped; an item that cannot be mapped is noted, not dropped silently. */
async function principalsOf(items: readonly unknown[], map: PrincipalMap, deps: AccessDeps, what: string, unresolved: Error[]): Promise<AccessEntry[]> {
  const out: AccessEntry[] = [];
  for (const item of items) {
    try {
      out.push(await toPrincipal(deps.expressions, map, item, deps.dialect, what));
    } catch (error) {
      if (!(error instanceof RestRecordError)) throw error;
      unresolved.push(error);
    }
  }
  return out;
}

/** What a container gives a document that inherits from it; its unresolvable entries are the document's too. */
function inheritedFrom(inherited: readonly AccessEntry[] | Error | undefined, containerId: string, what: string, unresolved: Error[]): readonly AccessEntry[] {
  if (inherited === undefined) throw new RestRecordError(`${what}.inherit: container ${JSON.stringify(containerId)} is not among the containers listed`);
  if (inherited instanceof UnresolvedAccessError) {
    unresolved.push(inherited);
    return inherited.accessAtMost;
  }
  if (inherited instanceof Error)
    throw new RestRecordError(`${what}.inherit: the access of container ${JSON.stringify(containerId)} could not be read: ${inherited.message}`);
  return inherited;
}

/**
 * Who may see a record: the union of what each part of `spec` gives (public, a field, a request,
 * the container's). A part that cannot be read (a failed page) throws, so the caller never serves
 * a list it could not read whole: fail closed. Entries read whole but not all resolvable throw an
 * UnresolvedAccessError carrying the rest. An empty result means nobody.
 */
export async function resolveAccess(spec: AccessSpec, record: unknown, deps: AccessDeps, what: string): Promise<AccessEntry[]> {
  const entries: AccessEntry[] = [];
  const unresolved: Error[] = [];
  if (spec.public !== undefined && (await deps.expressions.truth(spec.public, record))) entries.push(EVERYONE);
  if (spec.field)
    entries.push(...(await principalsOf(await deps.expressions.list(spec.field.path, record), spec.field.map, deps, `${what}.field`, unresolved)));
  if (spec.request) entries.push(...(await principalsFromRequest(spec.request, record, deps, `${what}.request`, unresolved)));
  if (spec.inherit !== undefined) {
    const containerId = await deps.expressions.text(spec.inherit, record);
    if (containerId !== undefined && containerId !== '') entries.push(...inheritedFrom(deps.containers?.get(containerId), containerId, what, unresolved));
  }
  if (spec.parent) {
    if (!deps.parentAccess) throw new RestRecordError(`${what}.parent: only a child document has a parent's access`);
    entries.push(...deps.parentAccess);
  }
  const [first] = unresolved;
  if (first) throw new UnresolvedAccessError(first.message, dedupe(entries));
  return dedupe(entries);
}

/**
 * What a record's access rule still grants for certain: its access, or the resolvable part of a
 * rule that cannot be resolved whole; undefined when a part could not be read (a transient failure:
 * nothing is known, the staged access is kept).
 */
export async function accessAtMostOf(spec: AccessSpec, record: unknown, deps: AccessDeps, what: string): Promise<readonly AccessEntry[] | undefined> {
  try {
    return await resolveAccess(spec, record, deps, what);
  } catch (error) {
    return error instanceof UnresolvedAccessError ? error.accessAtMost : undefined;
  }
}
