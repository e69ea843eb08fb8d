import { EVERYONE, type AccessEntry } from '../adapter';
import type { Expressions } from './rest-expressions';
import type { AccessSpec, FieldPrincipals, PrincipalListing } from './rest-manifest';
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

/** Principals from a field of the record: a list, each item mapped. */
export async function principalsFromField(field: FieldPrincipals, record: unknown, deps: AccessDeps, what: string): Promise<AccessEntry[]> {
  const items = await deps.expressions.list(field.path, record);
  const out: AccessEntry[] = [];
  for (const item of items) out.push(await toPrincipal(deps.expressions, field.map, item, deps.dialect, what));
  return out;
}

/** Principals from a request per record, read to its paginator's natural end (any failed page throws). */
export async function principalsFromRequest(listing: PrincipalListing, record: unknown, deps: AccessDeps, what: string): Promise<AccessEntry[]> {
  const out: AccessEntry[] = [];
  for await (const page of paginate(deps.requester, listing, { what, signal: deps.signal, record, ...(deps.maxPages ? { maxPages: deps.maxPages } : {}) })) {
    for (const item of page.records) {
      if (listing.filter && !(await deps.expressions.truth(listing.filter, item))) continue;
      out.push(await toPrincipal(deps.expressions, listing.map, item, deps.dialect, what));
    }
  }
  return out;
}

/**
 * Who may see a record: the union of what each part of `spec` gives (public, a field, a request,
 * the container's). Any failure throws, so the caller never serves a list it could not read whole:
 * fail closed. An empty result means nobody.
 */
export async function resolveAccess(spec: AccessSpec, record: unknown, deps: AccessDeps, what: string): Promise<AccessEntry[]> {
  const entries: AccessEntry[] = [];
  if (spec.public !== undefined && (await deps.expressions.truth(spec.public, record))) entries.push(EVERYONE);
  if (spec.field) entries.push(...(await principalsFromField(spec.field, record, deps, `${what}.field`)));
  if (spec.request) entries.push(...(await principalsFromRequest(spec.request, record, deps, `${what}.request`)));
  if (spec.inherit !== undefined) {
    const containerId = await deps.expressions.text(spec.inherit, record);
    if (containerId !== undefined && containerId !== '') {
      const inherited = deps.containers?.get(containerId);
      if (inherited === undefined) throw new RestRecordError(`${what}.inherit: container ${JSON.stringify(containerId)} is not among the containers listed`);
      if (inherited instanceof Error)
        throw new RestRecordError(`${what}.inherit: the access of container ${JSON.stringify(containerId)} could not be read: ${inherited.message}`);
      entries.push(...inherited);
    }
  }
  if (spec.parent) {
    if (!deps.parentAccess) throw new RestRecordError(`${what}.parent: only a child document has a parent's access`);
    entries.push(...deps.parentAccess);
  }
  return dedupe(entries);
}
