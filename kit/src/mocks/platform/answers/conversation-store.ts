/**
 * Conversations as the platform keeps them: messages in creation order (each with a sequence
 * number, timestamps strictly increasing), the callback ids handed out (feedback ratings and
 * "show more" actions), the modals opened, and the feedback submitted.
 */
import { newId } from '../ids';
import type { Modal } from './feedback-modal';
import { feedbackInteraction, type Interaction } from './interactions';
import type { Message } from './message-types';

export interface Conversation {
  id: string;
  /** The asker (platform user) and the assistant the conversation belongs to. */
  email: string;
  assistantName: string;
  createdAt: string;
  messages: Array<{ seq: number; message: Message }>;
}

export type Callback =
  | { kind: 'feedback'; rating: 'helpful' | 'unhelpful'; conversationId: string; responseId: string; messageId: string }
  | { kind: 'more'; conversationId: string; question: string; shown: number };

export interface FeedbackRecord {
  conversation_id: string;
  response_id: string;
  message_id: string;
  rating: 'helpful' | 'unhelpful';
  additional_feedback: string | null;
  submitted_at: string;
}

export class ConversationStore {
  readonly conversations = new Map<string, Conversation>();
  readonly callbacks = new Map<string, Callback>();
  readonly feedback: FeedbackRecord[] = [];
  /** The Data API's interactions: questions and feedback ratings. */
  readonly interactions: Interaction[] = [];
  /** The question interaction each final answer (by message id) responds to. */
  readonly answerInteraction = new Map<string, string>();
  /** Modals opened on `/rest/v1` (answers/feedback-modal.ts), by modal id. */
  readonly modals = new Map<string, Modal>();
  private seq = 0;
  private lastStamp = 0;

  constructor(private readonly now: () => number) {}

  /** A strictly increasing timestamp: two messages never share a creation time. */
  stamp(): string {
    this.lastStamp = Math.max(this.now(), this.lastStamp + 1);
    return new Date(this.lastStamp).toISOString();
  }

  create(email: string, assistantName: string): Conversation {
    const conversation: Conversation = { id: newId('conv'), email, assistantName, createdAt: this.stamp(), messages: [] };
    this.conversations.set(conversation.id, conversation);
    return conversation;
  }

  append(conversation: Conversation, message: Omit<Message, 'created_at' | 'message_id' | 'conversation_id'>, messageId = newId('msg')): Message {
    const full = { message_id: messageId, conversation_id: conversation.id, ...message, created_at: this.stamp() } as Message;
    conversation.messages.push({ seq: ++this.seq, message: full });
    return full;
  }

  callback(callback: Callback): string {
    const id = newId('cb');
    this.callbacks.set(id, callback);
    return id;
  }

  /** Records a rating (both feedback paths) and its interaction, whose parent is the rated answer's question. */
  addFeedback(record: FeedbackRecord): void {
    this.feedback.push(record);
    const email = this.conversations.get(record.conversation_id)?.email ?? '';
    this.interactions.push(
      feedbackInteraction({
        email,
        conversationId: record.conversation_id,
        messageId: record.message_id,
        parent: this.answerInteraction.get(record.message_id) ?? null,
        rating: record.rating,
        comment: record.additional_feedback,
        at: record.submitted_at,
      }),
    );
  }

  message(conversationId: string, messageId: string): Message | undefined {
    return this.conversations.get(conversationId)?.messages.find((m) => m.message.message_id === messageId)?.message;
  }

  /**
   * A page of messages, newest first: those with a sequence number below `before` (all when
   * undefined), at most `limit`, and the sequence number to continue below, if any remain.
   */
  page(conversation: Conversation, before: number | undefined, limit: number): { messages: Message[]; next: number | undefined } {
    const older = conversation.messages.filter((m) => before === undefined || m.seq < before).reverse();
    const page = older.slice(0, limit);
    const last = page[page.length - 1];
    return { messages: page.map((m) => m.message), next: older.length > limit && last ? last.seq : undefined };
  }
}
