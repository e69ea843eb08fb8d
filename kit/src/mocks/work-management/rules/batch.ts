/**
 * The batch endpoint, `POST /batch` (seed "Batch", all six rules):
 * 1. at most 10 actions per request;
 * 2. an empty action list gives 400;
 * 3. actions run in parallel with no ordering guarantee, none can use another's output;
 * 4. the response is 200 even when every action fails (only request-level problems such as
 *    missing authorization or malformed JSON fail the whole request);
 * 5. each action counts against the standard and the concurrent limiters as a separate request
 *    (the batch itself costs nothing); if any action would exceed a limit, the whole request
 *    fails with 429;
 * 6. uploading attachments, creating/getting/deleting organization exports, any SCIM operation
 *    and nested batch calls give 400 for that action.
 */
import { ApiError, RATE_LIMIT_MESSAGE, badRequest, errorBody } from '../api/api-error';
import { execute } from '../api/dispatch';
import { parseOptFields } from '../api/opt-fields';
import { bodyData, type ApiRequest, type ApiResponse, type HttpMethod } from '../api/route-table';
import type { MockContext } from '../mock-context';

export const MAX_BATCH_ACTIONS = 10;
const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head'] as const;

interface Action {
  relative_path?: unknown;
  method?: unknown;
  data?: unknown;
  options?: unknown;
}

export interface BatchResult {
  status_code: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Why an action may not run inside a batch, or undefined when it may. */
export function forbiddenInBatch(method: string, path: string): string | undefined {
  const p = path.toLowerCase();
  if (p === '/batch' || p.startsWith('/batch/')) return 'Nested batch requests are not allowed.';
  if (p.startsWith('/scim')) return 'SCIM operations are not allowed in a batch request.';
  if (p.startsWith('/organization_exports')) return 'Organization exports cannot be created, read or deleted in a batch request.';
  if (method === 'post' && (p === '/attachments' || /^\/(tasks|projects|project_briefs)\/[^/]+\/attachments$/.test(p)))
    return 'Attachments cannot be uploaded in a batch request.';
  return undefined;
}

export async function runBatch(req: ApiRequest, ctx: MockContext): Promise<ApiResponse> {
  const data = bodyData(req);
  const actions = data.actions;
  if (actions === undefined || actions === null) throw badRequest('actions: Missing input');
  if (!Array.isArray(actions)) throw badRequest('actions: Value is not an array');
  if (actions.length === 0) throw badRequest('actions: A batch request needs at least one action');
  if (actions.length > MAX_BATCH_ACTIONS) throw badRequest(`actions: A batch request has at most ${MAX_BATCH_ACTIONS} actions`);

  // Every action is a request for the limiters, all admitted or none.
  const reads = actions.filter((a: Action) => String(a?.method ?? '').toLowerCase() === 'get').length;
  const slot = ctx.limiter.acquire(req.caller.token, reads, actions.length - reads);
  if (!slot.ok) throw new ApiError(429, RATE_LIMIT_MESSAGE, {}, { 'retry-after': String(slot.retryAfterSec) });
  try {
    const results = await Promise.all(actions.map((a: Action) => runAction(req, ctx, a)));
    return { status: 200, body: { data: results } };
  } finally {
    slot.release();
  }
}

async function runAction(outer: ApiRequest, ctx: MockContext, action: Action): Promise<BatchResult> {
  const fail = (message: string, status = 400): BatchResult => ({ status_code: status, headers: {}, body: errorBody(message) });
  if (typeof action !== 'object' || action === null) return fail('action: Value is not an object');
  const method = typeof action.method === 'string' ? action.method.toLowerCase() : '';
  if (!(METHODS as readonly string[]).includes(method)) return fail(`method: must be one of ${METHODS.join(', ')}`);
  if (typeof action.relative_path !== 'string' || !action.relative_path.startsWith('/')) return fail('relative_path: Missing input');
  const [path = '', rawQuery = ''] = action.relative_path.split('?', 2);
  const reason = forbiddenInBatch(method, path);
  if (reason) return fail(reason);
  const options = (typeof action.options === 'object' && action.options !== null ? action.options : {}) as Record<string, unknown>;
  if ('pretty' in options) return fail('options.pretty: pretty is set on the batch request, not per action');

  const query: Record<string, string> = Object.fromEntries(new URLSearchParams(rawQuery));
  let body: unknown;
  if (method === 'get' || method === 'head') {
    if (typeof action.data === 'object' && action.data !== null)
      for (const [k, v] of Object.entries(action.data)) query[k] = Array.isArray(v) ? v.join(',') : String(v);
  } else if (action.data !== undefined) body = { data: action.data };
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.offset !== undefined) query.offset = String(options.offset);
  const fields = Array.isArray(options.fields) ? options.fields.map(String).join(',') : typeof options.fields === 'string' ? options.fields : undefined;
  if (fields !== undefined) query.opt_fields = fields;

  const res = await execute(
    {
      method: (method === 'head' ? 'GET' : method.toUpperCase()) as HttpMethod,
      path,
      query,
      body,
      caller: outer.caller,
      apiBase: outer.apiBase,
      origin: outer.origin,
      fields: parseOptFields(query.opt_fields),
      inBatch: true,
    },
    ctx,
  );
  return { status_code: res.status, headers: res.headers ?? {}, body: res.body };
}
