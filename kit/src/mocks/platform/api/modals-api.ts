/**
 * Modals on `/rest/v1` only (answers/feedback-modal.ts): the lifecycle table has no row for them on
 * `/assistant/v1` or on beta versions, where they answer 404 NOT_FOUND. The same checks as every
 * Conversations endpoint first (JWT, Assistant-Name, the conversation); errors in its format.
 *
 *   POST /rest/v1/conversations/{conversation_id}/responses/{response_id}/messages/{message_id}/modals
 *        opens the feedback modal of a final assistant message → 201 {modal}
 *   GET  /rest/v1/conversations/{conversation_id}/modals/{modal_id} → 200 {modal}
 *   POST /rest/v1/conversations/{conversation_id}/modals/{modal_id}/submit
 *        {values: {rating: HELPFUL|UNHELPFUL, comment?}} → 200 {status: SUBMITTED}, recorded as feedback
 */
import type { Request, Response } from 'express';
import { MAX_MODAL_COMMENT, feedbackModal, type Modal } from '../answers/feedback-modal';
import type { PlatformContext } from '../platform-context';
import { ApiError } from './api-error';
import { askerOf, caller, conversationOf } from './conversations-api';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function openModal(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const conversation = conversationOf(req, ctx, askerOf(await caller(req, ctx)));
  const message = ctx.store.message(conversation.id, String(req.params.message_id));
  if (!message || message.response_id !== req.params.response_id) throw new ApiError('not-found', 'The message does not exist in this response');
  if (!message.feedback) throw new ApiError('bad-request', 'This message has no feedback modal: only final assistant messages do');
  const modal = feedbackModal(message, ctx.store.stamp());
  ctx.store.modals.set(modal.modal_id, modal);
  res.status(201).json({ modal });
}

function modalOf(req: Request, ctx: PlatformContext, email: string): Modal {
  const conversation = conversationOf(req, ctx, email);
  const modal = ctx.store.modals.get(String(req.params.modal_id));
  if (!modal || modal.conversation_id !== conversation.id)
    throw new ApiError('not-found', `Modal ${String(req.params.modal_id)} does not exist in this conversation`);
  return modal;
}

export async function getModal(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  res.status(200).json({ modal: modalOf(req, ctx, askerOf(await caller(req, ctx))) });
}

export async function submitModal(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const modal = modalOf(req, ctx, askerOf(await caller(req, ctx)));
  const body: unknown = req.body;
  const values = isObj(body) && isObj(body.values) ? body.values : undefined;
  if (!values || (values.rating !== 'HELPFUL' && values.rating !== 'UNHELPFUL'))
    throw new ApiError('bad-request', 'values.rating is required: HELPFUL or UNHELPFUL');
  const comment = values.comment;
  if (comment !== undefined && comment !== null && (typeof comment !== 'string' || comment.length > MAX_MODAL_COMMENT))
    throw new ApiError('bad-request', `values.comment must be a string of at most ${MAX_MODAL_COMMENT} characters`);
  if (modal.status === 'SUBMITTED') throw new ApiError('bad-request', 'This modal was already submitted');
  modal.status = 'SUBMITTED';
  ctx.store.addFeedback({
    conversation_id: modal.conversation_id,
    response_id: modal.response_id,
    message_id: modal.message_id,
    rating: values.rating === 'HELPFUL' ? 'helpful' : 'unhelpful',
    additional_feedback: typeof comment === 'string' ? comment : null,
    submitted_at: ctx.clock.iso(),
  });
  res.status(200).json({ status: 'SUBMITTED' });
}
