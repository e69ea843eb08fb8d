/**
 * Modals: a capability served only on `/rest/v1` (seed, Versioning: "new capabilities such as
 * modals are served only on /rest/v1"). The seed shows no modal payload; the simulator's modal is
 * the feedback form of a final assistant message — a title, a required choice (helpful or not), an
 * optional comment of at most 1,000 characters and a submit label — opened once per request,
 * submitted once, and recorded as that message's feedback.
 */
import { newId } from '../ids';
import { plainText, type Content, type Message } from './message-types';

export const MAX_MODAL_COMMENT = 1000;

export type ModalField =
  | { field_id: 'rating'; type: 'CHOICE'; label: string; required: true; options: Array<{ value: 'HELPFUL' | 'UNHELPFUL'; label: string }> }
  | { field_id: 'comment'; type: 'TEXT'; label: string; required: false; max_length: number };

export interface Modal {
  modal_id: string;
  type: 'FEEDBACK';
  status: 'OPEN' | 'SUBMITTED';
  conversation_id: string;
  response_id: string;
  message_id: string;
  title: Content;
  fields: ModalField[];
  submit_label: string;
  created_at: string;
}

export function feedbackModal(message: Message, createdAt: string): Modal {
  return {
    modal_id: newId('modal'),
    type: 'FEEDBACK',
    status: 'OPEN',
    conversation_id: message.conversation_id,
    response_id: message.response_id,
    message_id: message.message_id,
    title: plainText('Rate this answer'),
    fields: [
      {
        field_id: 'rating',
        type: 'CHOICE',
        label: 'Was this answer helpful?',
        required: true,
        options: [
          { value: 'HELPFUL', label: 'Helpful' },
          { value: 'UNHELPFUL', label: 'Not helpful' },
        ],
      },
      { field_id: 'comment', type: 'TEXT', label: 'Anything to add?', required: false, max_length: MAX_MODAL_COMMENT },
    ],
    submit_label: 'Send feedback',
    created_at: createdAt,
  };
}
