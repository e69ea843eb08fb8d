/**
 * The Data API's `plugin-resources` (seed: Count plugin resources; reference §7.1): the list with
 * OData options and server paging, and `$count` answering the bare number. `$count=true` on the
 * list is accepted and ignored (the count endpoint is the only way to count).
 */
import type { Request, Response } from 'express';
import type { PluginResource } from '../answers/plugin-resources';
import type { PlatformContext } from '../platform-context';
import { ApiError } from './api-error';
import { regionOf } from './data-regions';
import { parseCount, parseFilter, parseOrderby, parseSelect } from './odata-query';

type Rec = Record<string, unknown>;

const TOP_FIELDS = ['id', 'resource_id', 'type', 'plugin_call_id', 'interaction_id', 'user_id', 'conversation_id', 'detail', 'cited', 'created_time', 'last_updated_time'];
const DETAIL_FIELDS = ['domain', 'external_resource_id', 'name', 'snippet', 'source', 'type', 'url'];
/** Paths `$filter` and `$orderby` accept; `$select` takes the top-level ones. */
export const PLUGIN_RESOURCE_FIELDS: ReadonlySet<string> = new Set([...TOP_FIELDS, ...DETAIL_FIELDS.map((f) => `detail/${f}`)]);

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

function matching(ctx: PlatformContext, filter: string | undefined): PluginResource[] {
  const records = ctx.pluginResources;
  if (filter === undefined) return [...records];
  const predicate = parseFilter(filter, PLUGIN_RESOURCE_FIELDS);
  return records.filter((r) => predicate(r as unknown as Rec));
}

/** The caller's credentials (403 otherwise), then the region addressed (404 for an unknown one). */
async function where(req: Request, ctx: PlatformContext): Promise<{ base: string }> {
  await ctx.auth.data(req.get('authorization'));
  const region = regionOf(req);
  if (!region) throw new ApiError('not-found', `no Data API region ${String(req.params.region)}`);
  return region;
}

export async function countPluginResources(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  await where(req, ctx);
  const opts = options(req, COUNT_OPTIONS);
  res.status(200).type('text/plain').send(String(matching(ctx, opts.get('$filter')).length));
}

const byCreation = (a: PluginResource, b: PluginResource): number => (a.created_time < b.created_time ? -1 : a.created_time > b.created_time ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function pick(record: PluginResource, select: string[] | undefined): Rec {
  if (!select) return record as unknown as Rec;
  return Object.fromEntries(select.map((f) => [f, (record as unknown as Rec)[f]]));
}

export async function listPluginResources(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const { base } = await where(req, ctx);
  const opts = options(req, LIST_OPTIONS);
  const select = opts.has('$select') ? parseSelect(opts.get('$select') as string, new Set(TOP_FIELDS)) : undefined;
  const order = opts.has('$orderby') ? parseOrderby(opts.get('$orderby') as string, PLUGIN_RESOURCE_FIELDS) : undefined;
  const skip = opts.has('$skip') ? parseCount('$skip', opts.get('$skip') as string) : 0;
  const top = opts.has('$top') ? parseCount('$top', opts.get('$top') as string) : Number.MAX_SAFE_INTEGER;
  const query = [...opts].filter(([k]) => k !== '$skiptoken').sort(([a], [b]) => a.localeCompare(b));
  const queryKey = JSON.stringify(query);
  let offset = 0;
  if (opts.has('$skiptoken')) {
    const token = ctx.tokens.verify(opts.get('$skiptoken') as string);
    if (!token || token.k !== 'data' || token.q !== queryKey || typeof token.o !== 'number') throw new ApiError('bad-request', '$skiptoken is not valid for this query');
    offset = token.o;
  }
  const sorted = matching(ctx, opts.get('$filter')).sort((a, b) => (order ? order(a as unknown as Rec, b as unknown as Rec) : 0) || byCreation(a, b));
  const window = sorted.slice(skip, skip + top);
  const page = window.slice(offset, offset + ctx.settings.dataPageSize);
  const body: Rec = { '@odata.context': `${base}/$metadata#plugin-resources`, value: page.map((r) => pick(r, select)) };
  if (offset + page.length < window.length) {
    const params = new URLSearchParams([...query, ['$skiptoken', ctx.tokens.sign({ k: 'data', q: queryKey, o: offset + page.length })]]);
    body['@odata.nextLink'] = `${base}/plugin-resources?${params.toString().replace(/%24/g, '$')}`;
  }
  res.status(200).json(body);
}
