/** The wire shapes of the Conversations API (seed: Conversation message). */

export type Content =
  | { type: 'PLAIN_TEXT'; plain_text: { text: string } }
  | { type: 'COMMONMARK_TEXT'; commonmark_text: { text: string } }
  | { type: 'MARKDOWN_TEXT'; markdown_text: { text: string } }
  | { type: 'CALLBACK_ACTION_CONTENT'; callback_action: { callback_id: string } };

export type ContentType = Content['type'];

export interface Citation {
  citation_id: string;
  url: string;
  display: { title: Content; body: Content; attributes: Array<{ key: string; value: string }> };
}

export interface ContentReference {
  citation_id: string;
  offset: number;
}

export type Action =
  { type: 'CALLBACK_ACTION'; label: string; callback_action: { callback_id: string } } | { type: 'URL_ACTION'; label: string; url_action: { url: string } };

export interface Message {
  message_id: string;
  conversation_id: string;
  response_id: string;
  actor: 'USER' | 'ASSISTANT';
  content: Content;
  created_at: string;
  citations?: Citation[] | null;
  content_references?: ContentReference[] | null;
  feedback?: { helpful: { callback_id: string }; unhelpful: { callback_id: string } } | null;
  actions?: Action[];
}

export const plainText = (text: string): Content => ({ type: 'PLAIN_TEXT', plain_text: { text } });

/** The text of a message's content (empty for a callback). */
export function textOf(content: Content): string {
  switch (content.type) {
    case 'PLAIN_TEXT':
      return content.plain_text.text;
    case 'COMMONMARK_TEXT':
      return content.commonmark_text.text;
    case 'MARKDOWN_TEXT':
      return content.markdown_text.text;
    case 'CALLBACK_ACTION_CONTENT':
      return '';
  }
}

/** Rich text: CommonMark when the chat asked for it (`is_commonmark`), raw markdown otherwise. */
export function richText(text: string, isCommonmark: boolean): Content {
  return isCommonmark ? { type: 'COMMONMARK_TEXT', commonmark_text: { text } } : { type: 'MARKDOWN_TEXT', markdown_text: { text } };
}
