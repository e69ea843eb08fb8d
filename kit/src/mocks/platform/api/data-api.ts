/**
 * The Data API's `plugin-resources` (seed: Count plugin resources; reference §7.1): the list with
 * OData options and server paging, and `$count` answering the bare number. `$count=true` on the
 * list is accepted and ignored (the count endpoint is the only way to count). `interactions`
 * (questions and feedback ratings, answers/interactions.ts) is listed the same way.
 */
import type { Request, Response } from 'express';
import type { Interaction } from '../answers/interactions';
import type { PluginResource } from '../answers/plugin-resources';
import type { PlatformContext } from '../platform-context';
import { ApiError } from './api-error';
import { regionOf } from './data-regions';
import { EqualityIndex } from './equality-index';
import { compileFilter, parseCount, parseOrderby, parseSelect, type CompiledFilter } from './odata-query';

type Rec = Record<string, unknown>;

const TOP_FIELDS = [
  'id',
  'resource_id',
  'type',
  'plugin_call_id',
  'interaction_id',
  'user_id',
  'conversation_id',
  'detail',
  'cited',
  'created_time',
  'last_updated_time',
];
const DETAIL_FIELDS = ['domain', 'external_resource_id', 'name', 'snippet', 'source', 'type', 'url'];
/** Paths `$filter` and `$orderby` accept; `$select` takes the top-level ones. */
export const PLUGIN_RESOURCE_FIELDS: ReadonlySet<string> = new Set([...TOP_FIELDS, ...DETAIL_FIELDS.map((f) => `detail/${f}`)]);
const INTERACTION_TOP = [
  'id',
  'actor',
  'platform',
  'type',
  'label',
  'parent_interaction_id',
  'user_id',
  'conversation_id',
  'detail',
  'created_time',
  'last_updated_time',
];
const INTERACTION_DETAIL = ['content', 'domain', 'entity', 'type', 'detail', 'resource_id', 'file_types'];
export const INTERACTION_FIELDS: ReadonlySet<string> = new Set([...INTERACTION_TOP, ...INTERACTION_DETAIL.map((f) => `detail/${f}`)]);

/** An entity set the simulator serves: its records and the fields its queries may name. */
interface EntitySet {
  name: string;
  records: readonly Rec[];
  fields: ReadonlySet<string>;
  top: ReadonlySet<string>;
}

const LIST_OPTIONS = new Set(['$filter', '$select', '$orderby', '$top', '$skip', '$count', '$skiptoken']);
const COUNT_OPTIONS = new Set(['$filter', '$count']);

/** The query's `$` options, each given once; unknown ones are a 400. */
function options(req: Request, allowed: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!key.startsWith('$')) continue;
    if (!allowed.has(key)) throw new ApiError('bad-request', `unsupported query option ${key}`);
    if (typeof value !== 'string') throw new ApiError('bad-request', `${key} must be given once`);
    out.set(key, value);
  }
  return out;
}

const INDEX = new EqualityIndex();
/** Recently compiled filters: paging re-sends the same one, and long `or` lists are slow to parse. */
const COMPILED = new Map<string, CompiledFilter>();
const COMPILED_MAX = 256;

function compiled(set: EntitySet, filter: string): CompiledFilter {
  const key = `${set.name}\u0000${filter}`;
  let hit = COMPILED.get(key);
  if (!hit) {
    hit = compileFilter(filter, set.fields);
    if (COMPILED.size >= COMPILED_MAX) COMPILED.delete(COMPILED.keys().next().value as string);
    COMPILED.set(key, hit);
  }
  return hit;
}

function matching(set: EntitySet, filter: string | undefined): Rec[] {
  if (filter === undefined) return [...set.records];
  const { predicate, keys } = compiled(set, filter);
  const candidates = keys && set.fields.has(keys.path) ? INDEX.lookup(set.records, keys.path, keys.values) : set.records;
  return candidates.filter((r) => predicate(r));
}

const pluginResources = (ctx: PlatformContext): EntitySet => ({
  name: 'plugin-resources',
  records: ctx.pluginResources as unknown as Rec[],
  fields: PLUGIN_RESOURCE_FIELDS,
  top: new Set(TOP_FIELDS),
});
const interactions = (ctx: PlatformContext): EntitySet => ({
  name: 'interactions',
  records: ctx.store.interactions as unknown as Rec[],
  fields: INTERACTION_FIELDS,
  top: new Set(INTERACTION_TOP),
});

/** The caller's credentials (403 otherwise), then the region addressed (404 for an unknown one, 403 for one the tenant is not in). */
async function where(req: Request, ctx: PlatformContext): Promise<{ base: string }> {
  await ctx.auth.data(req.get('authorization'));
  const region = regionOf(req);
  if (!region) throw new ApiError('not-found', `no Data API region ${String(req.params.region)}`);
  // A tenant's records live in its region: another region's server knows no tenant with these credentials.
  if (region.region.id !== ctx.settings.dataRegion) throw new ApiError('forbidden', `No tenant with these credentials in the ${region.region.name} region`);
  return region;
}

export async function countPluginResources(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  await where(req, ctx);
  const opts = options(req, COUNT_OPTIONS);
  // Counted before the answer's type is set: a bad $filter's 400 is JSON like every other error.
  const count = matching(pluginResources(ctx), opts.get('$filter')).length;
  res.status(200).type('text/plain').send(String(count));
}

type Created = Pick<PluginResource | Interaction, 'id' | 'created_time'>;
const byCreation = (x: Rec, y: Rec): number => {
  const [a, b] = [x as unknown as Created, y as unknown as Created];
  return a.created_time < b.created_time ? -1 : a.created_time > b.created_time ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

function pick(record: Rec, select: string[] | undefined): Rec {
  if (!select) return record;
  return Object.fromEntries(select.map((f) => [f, record[f]]));
}

export function listPluginResources(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  return listEntitySet(req, res, ctx, pluginResources(ctx));
}

export function listInteractions(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  return listEntitySet(req, res, ctx, interactions(ctx));
}

async function listEntitySet(req: Request, res: Response, ctx: PlatformContext, set: EntitySet): Promise<void> {
  const { base } = await where(req, ctx);
  const opts = options(req, LIST_OPTIONS);
  const select = opts.has('$select') ? parseSelect(opts.get('$select') as string, set.top) : undefined;
  const order = opts.has('$orderby') ? parseOrderby(opts.get('$orderby') as string, set.fields) : undefined;
  const skip = opts.has('$skip') ? parseCount('$skip', opts.get('$skip') as string) : 0;
  const top = opts.has('$top') ? parseCount('$top', opts.get('$top') as string) : Number.MAX_SAFE_INTEGER;
  const query = [...opts].filter(([k]) => k !== '$skiptoken').sort(([a], [b]) => a.localeCompare(b));
  const queryKey = JSON.stringify(query);
  let offset = 0;
  if (opts.has('$skiptoken')) {
    const token = ctx.tokens.verify(opts.get('$skiptoken') as string);
    if (!token || token.k !== `data:${set.name}` || token.q !== queryKey || typeof token.o !== 'number')
      throw new ApiError('bad-request', '$skiptoken is not valid for this query');
    offset = token.o;
  }
  const sorted = matching(set, opts.get('$filter')).sort((a, b) => (order ? order(a, b) : 0) || byCreation(a, b));
  const window = sorted.slice(skip, skip + top);
  const page = window.slice(offset, offset + ctx.settings.dataPageSize);
  const body: Rec = { '@odata.context': `${base}/$metadata#${set.name}`, value: page.map((r) => pick(r, select)) };
  if (offset + page.length < window.length) {
    const params = new URLSearchParams([...query, ['$skiptoken', ctx.tokens.sign({ k: `data:${set.name}`, q: queryKey, o: offset + page.length })]]);
    body['@odata.nextLink'] = `${base}/${set.name}?${params.toString().replace(/%24/g, '$')}`;
  }
  res.status(200).json(body);
}
