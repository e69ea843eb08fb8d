/** The Conversations API's message (seed: Conversation message), as far as its clients read it. */
export type MessageContent =
  | { type: 'PLAIN_TEXT'; plain_text: { text: string } }
  | { type: 'COMMONMARK_TEXT'; commonmark_text: { text: string } }
  | { type: 'MARKDOWN_TEXT'; markdown_text: { text: string } }
  | { type: 'CALLBACK_ACTION_CONTENT'; callback_action: { callback_id: string } };

export interface MessageCitation {
  citation_id: string;
  url: string;
  display?: { title?: MessageContent; body?: MessageContent; attributes?: Array<{ key: string; value: string }> };
}

export interface ConversationMessage {
  message_id: string;
  conversation_id: string;
  response_id: string;
  actor: 'USER' | 'ASSISTANT';
  content: MessageContent;
  created_at: string;
  citations?: MessageCitation[] | null;
  content_references?: Array<{ citation_id: string; offset: number }> | null;
  feedback?: { helpful: { callback_id: string }; unhelpful: { callback_id: string } } | null;
  actions?: Array<{ type: string; label: string; callback_action?: { callback_id: string }; url_action?: { url: string } }>;
}

export type FeedbackRating = 'helpful' | 'unhelpful';
