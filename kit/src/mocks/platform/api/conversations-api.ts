/**
 * The Conversations API (seed: List conversation messages, Submit feedback; reference §7.2):
 * `Authorization: Bearer <JWT>` (401 UNAUTHORIZED), `Assistant-Name` equal to the organization's
 * assistant (403 FORBIDDEN), conversations of that assistant only (404 NOT_FOUND), cursors that
 * are opaque, signed and bound to their conversation (400 INVALID_CURSOR).
 */
import type { Request, Response } from 'express';
import { AskError } from '../answers/assistant';
import type { Conversation } from '../answers/conversation-store';
import type { PlatformContext } from '../platform-context';
import { ApiError } from './api-error';
import type { TokenClaims } from './platform-auth';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_ADDITIONAL_FEEDBACK = 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Authentication, then the assistant: what every Conversations endpoint checks first. */
export async function caller(req: Request, ctx: PlatformContext): Promise<TokenClaims> {
  const claims = await ctx.auth.conversations(req.get('authorization'));
  const assistant = req.get('assistant-name');
  if (assistant === undefined || assistant.trim() === '') throw new ApiError('forbidden', 'The Assistant-Name header is required');
  if (assistant !== ctx.auth.credentials.assistantName) throw new ApiError('forbidden', `Invalid assistant: ${assistant}`);
  return claims;
}

/**
 * The conversation of the path, if it belongs to `email` (the token's person): another person's
 * conversation answers as one that does not exist (404 NOT_FOUND), so its messages, citations and
 * feedback are never shown to, nor rated by, anyone but the person who asked.
 */
export function conversationOf(req: Request, ctx: PlatformContext, email: string): Conversation {
  const id = String(req.params.conversation_id);
  const conversation = ctx.store.conversations.get(id);
  if (!conversation || conversation.assistantName !== ctx.auth.credentials.assistantName || conversation.email.toLowerCase() !== email.toLowerCase())
    throw new ApiError('not-found', `Conversation ${id} does not exist`);
  return conversation;
}

function queryString(req: Request, name: string): string | undefined {
  const v = (req.query as Obj)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new ApiError('bad-cursor', `${name} must be given once`);
  return v;
}

export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_LIMIT)) throw new ApiError('bad-cursor', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  return n;
}

export async function listMessages(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const conversation = conversationOf(req, ctx, askerOf(await caller(req, ctx)));
  const limit = parseLimit(queryString(req, 'limit'));
  const cursor = queryString(req, 'cursor');
  let before: number | undefined;
  if (cursor !== undefined) {
    const token = ctx.tokens.verify(cursor);
    if (!token || token.k !== 'msgs' || token.c !== conversation.id || typeof token.b !== 'number') throw new ApiError('bad-cursor', 'The cursor is invalid');
    before = token.b;
  }
  const page = ctx.store.page(conversation, before, limit);
  const next = page.next === undefined ? null : ctx.tokens.sign({ k: 'msgs', c: conversation.id, b: page.next });
  res.status(200).json({ messages: page.messages, metadata: { next_cursor: next } });
}

export async function submitFeedback(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const conversation = conversationOf(req, ctx, askerOf(await caller(req, ctx)));
  const message = ctx.store.message(conversation.id, String(req.params.message_id));
  if (!message || message.response_id !== req.params.response_id) throw new ApiError('not-found', 'The message does not exist in this response');
  const body: unknown = req.body;
  if (!isObj(body) || typeof body.callback_id !== 'string' || body.callback_id === '') throw new ApiError('bad-request', 'callback_id is required');
  const extra = body.additional_feedback;
  if (extra !== undefined && extra !== null && (typeof extra !== 'string' || extra.length > MAX_ADDITIONAL_FEEDBACK))
    throw new ApiError('bad-request', `additional_feedback must be a string of at most ${MAX_ADDITIONAL_FEEDBACK} characters`);
  if (!message.feedback) throw new ApiError('bad-request', 'This message does not support feedback');
  const rating =
    body.callback_id === message.feedback.helpful.callback_id
      ? 'helpful'
      : body.callback_id === message.feedback.unhelpful.callback_id
        ? 'unhelpful'
        : undefined;
  if (!rating) throw new ApiError('bad-request', 'callback_id does not match this message');
  ctx.store.addFeedback({
    conversation_id: conversation.id,
    response_id: message.response_id,
    message_id: message.message_id,
    rating,
    additional_feedback: typeof extra === 'string' ? extra : null,
    submitted_at: ctx.clock.iso(),
  });
  res.status(200).json({ status: 'SUBMITTED' });
}

/** The person a conversation is for, and the only one who may read or rate it: the token's `user_email` claim. */
export function askerOf(claims: TokenClaims): string {
  if (!claims.email) throw new ApiError('forbidden', 'This token acts for no user: request it with user_email');
  return claims.email;
}

export async function createConversation(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const email = askerOf(await caller(req, ctx));
  const c = ctx.store.create(email, ctx.auth.credentials.assistantName);
  res.status(201).json({ conversation_id: c.id, created_at: c.createdAt, updated_at: c.createdAt, title: null, archived: false });
}

export async function createResponse(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const email = askerOf(await caller(req, ctx));
  const conversation = conversationOf(req, ctx, email);
  const body: unknown = req.body;
  const input = isObj(body) && isObj(body.input) ? body.input : undefined;
  if (!input || (typeof input.text !== 'string' && typeof input.callback_id !== 'string'))
    throw new ApiError('bad-request', 'input must be exactly one of {text} or {callback_id}');
  try {
    const out = ctx.assistant.ask({
      email,
      conversationId: conversation.id,
      ...(typeof input.text === 'string' ? { text: input.text } : {}),
      ...(typeof input.callback_id === 'string' ? { callbackId: input.callback_id } : {}),
      isCommonmark: isObj(body) && body.is_commonmark === true,
    });
    res.status(202).json({ response_id: out.responseId, conversation_id: conversation.id, status: 'COMPLETED', messages: out.messages });
  } catch (error) {
    if (error instanceof AskError) throw new ApiError(error.kind === 'NOT_FOUND' ? 'not-found' : 'bad-request', error.message);
    throw error;
  }
}
