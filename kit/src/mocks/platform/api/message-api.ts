/**
 * The Message API (seed: Message API (legacy) and migration; reference §7.3): `POST
 * /rest/v1/messages/send` with the message API key, body `{message, recipients}` (at most 500
 * recipients), answering `{"data": {"status": "RECEIVED"}}`. The deprecated beta path takes the
 * same key and says in its answer that it is deprecated (headers come from the lifecycle table).
 */
import type { Request, Response } from 'express';
import type { PlatformContext } from '../platform-context';
import { ApiError } from './api-error';
import type { LifecycleRow } from './lifecycle-table';

export const MAX_RECIPIENTS = 500;

export async function sendMessage(req: Request, res: Response, ctx: PlatformContext, row: LifecycleRow): Promise<void> {
  ctx.auth.message(req.get('authorization'));
  const body = req.body as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('bad-request', 'The body must be a JSON object');
  if (typeof body.message !== 'string' || body.message.trim() === '') throw new ApiError('bad-request', 'message is required');
  const recipients = body.recipients;
  if (!Array.isArray(recipients) || recipients.length === 0 || !recipients.every((r) => typeof r === 'string' && /^[^@\s]+@[^@\s]+$/.test(r)))
    throw new ApiError('bad-request', 'recipients must be a non-empty array of email addresses');
  if (recipients.length > MAX_RECIPIENTS) throw new ApiError('bad-request', `at most ${MAX_RECIPIENTS} recipients per request`);
  ctx.sentMessages.push({ path: req.path, message: body.message, recipients: recipients as string[], receivedAt: ctx.clock.iso() });
  const out: Record<string, unknown> = { data: { status: 'RECEIVED' } };
  if (row.stage === 'deprecated')
    out.warning = `${row.method} ${row.path} is deprecated since ${row.since ?? 'an earlier release'}; use ${row.method} ${row.successor ?? ''}. The current message API key still works.`;
  res.status(200).json(out);
}
