/**
 * The assistant: takes a person's question (or a callback they clicked), searches only the files
 * that person may VIEW, and records one response in a conversation: the USER message, a
 * progress message, and the final ASSISTANT reply with citations, content references, feedback
 * callbacks and actions. Every file it surfaced becomes a plugin-resource record.
 */
import type { AccessResolver } from '../access-resolver';
import type { CorpusIndex } from '../corpus-index';
import { newId } from '../ids';
import { composeAnswer } from './compose-answer';
import type { Conversation, ConversationStore } from './conversation-store';
import { plainText, type Content, type Message } from './message-types';
import { questionInteraction } from './interactions';
import { recordsFor, type PluginResource } from './plugin-resources';

export interface AskInput {
  email: string;
  /** Exactly one of `text` and `callbackId` (the create-response `input`). */
  text?: string;
  callbackId?: string;
  conversationId?: string;
  isCommonmark?: boolean;
}

export interface AskResult {
  conversation: Conversation;
  responseId: string;
  messages: Message[];
}

export class AskError extends Error {
  constructor(
    readonly kind: 'INVALID_REQUEST' | 'NOT_FOUND',
    message: string,
  ) {
    super(message);
  }
}

export interface AssistantDeps {
  store: ConversationStore;
  pluginResources: PluginResource[];
  search: () => { index: CorpusIndex; access: AccessResolver; source: string };
  assistantName: string;
  /** Files surfaced per answer, and how many of them are cited. */
  surfaced?: number;
  cited?: number;
}

export class Assistant {
  constructor(private readonly deps: AssistantDeps) {}

  ask(input: AskInput): AskResult {
    const { store } = this.deps;
    if ((input.text === undefined) === (input.callbackId === undefined))
      throw new AskError('INVALID_REQUEST', 'input takes exactly one of text and callback_id');
    if (input.text !== undefined && !input.text.trim()) throw new AskError('INVALID_REQUEST', 'input.text is empty');
    const conversation = this.conversationFor(input);
    const { question, shown, userContent } = this.question(input, conversation);
    const responseId = newId('resp');
    const messages = [store.append(conversation, { response_id: responseId, actor: 'USER', content: userContent })];
    messages.push(
      store.append(conversation, {
        response_id: responseId,
        actor: 'ASSISTANT',
        content: plainText(`Searching the knowledge base for "${question}"…`),
        citations: null,
        content_references: null,
        feedback: null,
      }),
    );
    messages.push(this.answer(conversation, responseId, question, shown, input.isCommonmark ?? false));
    return { conversation, responseId, messages };
  }

  private conversationFor(input: AskInput): Conversation {
    if (input.conversationId === undefined) return this.deps.store.create(input.email, this.deps.assistantName);
    const conversation = this.deps.store.conversations.get(input.conversationId);
    if (!conversation || conversation.email.toLowerCase() !== input.email.toLowerCase())
      throw new AskError('NOT_FOUND', `no conversation ${input.conversationId}`);
    return conversation;
  }

  private question(input: AskInput, conversation: Conversation): { question: string; shown: number; userContent: Content } {
    if (input.text !== undefined) return { question: input.text.trim(), shown: 0, userContent: plainText(input.text) };
    const callback = this.deps.store.callbacks.get(input.callbackId as string);
    if (!callback || callback.kind !== 'more' || callback.conversationId !== conversation.id)
      throw new AskError('INVALID_REQUEST', 'callback_id is not an action of this conversation');
    return {
      question: callback.question,
      shown: callback.shown,
      userContent: { type: 'CALLBACK_ACTION_CONTENT', callback_action: { callback_id: input.callbackId as string } },
    };
  }

  private answer(conversation: Conversation, responseId: string, question: string, shown: number, isCommonmark: boolean): Message {
    const { store } = this.deps;
    const { index, access, source } = this.deps.search();
    const surfacedCount = this.deps.surfaced ?? 5;
    const hits = index.query(question, access.visibleFileIds(conversation.email), shown + surfacedCount + 1);
    const surfaced = hits.slice(shown, shown + surfacedCount);
    const cited = surfaced.slice(0, this.deps.cited ?? 3);
    const moreCallbackId =
      hits.length > shown + cited.length ? store.callback({ kind: 'more', conversationId: conversation.id, question, shown: shown + cited.length }) : undefined;
    const answer = composeAnswer({ question, hits: cited, isCommonmark, ...(moreCallbackId ? { moreCallbackId } : {}) });
    const messageId = newId('msg');
    const rating = (r: 'helpful' | 'unhelpful') => ({
      callback_id: store.callback({ kind: 'feedback', rating: r, conversationId: conversation.id, responseId, messageId }),
    });
    const message = store.append(
      conversation,
      {
        response_id: responseId,
        actor: 'ASSISTANT',
        content: answer.content,
        citations: answer.citations,
        content_references: answer.content_references,
        feedback: { helpful: rating('helpful'), unhelpful: rating('unhelpful') },
        ...(answer.actions.length ? { actions: answer.actions } : {}),
      },
      messageId,
    );
    const interactionId = newId('int');
    store.interactions.push(
      questionInteraction({ id: interactionId, email: conversation.email, conversationId: conversation.id, question, at: message.created_at }),
    );
    store.answerInteraction.set(message.message_id, interactionId);
    this.deps.pluginResources.push(
      ...recordsFor({
        email: conversation.email,
        conversationId: conversation.id,
        interactionId,
        source,
        surfaced,
        citedIds: new Set(cited.map((h) => h.file.id)),
        at: message.created_at,
      }),
    );
    return message;
  }
}
