/**
 * Runs one API request (or one batch action) through the route table, checking the token's expiry
 * and scope (rules/access-tokens.ts), and turns thrown errors into error responses.
 */
import { ApiError, errorBody, phraseFor } from './api-error';
import type { ApiRequest, ApiResponse } from './api-request';
import { runAsCaller } from '../rules/audit-log';
import { settleBody } from './settle-body';
import type { MockContext } from '../mock-context';

export async function execute(req: Omit<ApiRequest, 'params'>, ctx: MockContext): Promise<ApiResponse> {
  try {
    // An expired OAuth token fails whatever the path; a scope is checked once the route is known.
    ctx.tokens.assertCurrent(req.caller.token);
    const { route, params } = ctx.routes.match(req.method, req.path);
    ctx.tokens.assertScope(req.caller.token, route);
    // The audit log names the caller, and how it authenticated, as the actor of what it changes.
    const caller = { user: req.caller.user.gid, tokenKind: ctx.tokens.grantOf(req.caller.token)?.kind ?? 'personal_access_token' };
    const response = await runAsCaller(caller, () => route.handler({ ...req, params }, ctx));
    // Attachment sizes not known yet are promises (their documents are being built): await them.
    await settleBody(response.body);
    return response;
  } catch (err) {
    return errorResponse(err);
  }
}

export function errorResponse(err: unknown): ApiResponse {
  if (err instanceof ApiError) {
    const phrase = err.status === 500 ? { phrase: phraseFor(err.message.length) } : {};
    return { status: err.status, body: { ...errorBody(err.message, phrase), ...err.extra }, headers: err.headers };
  }
  // A bug in the mock: still answer in the service's error shape, with a phrase.
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: errorBody(`Server Error: ${message}`, { phrase: phraseFor(message.length) }) };
}
