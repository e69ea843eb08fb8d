/**
 * Interaction records (the Data API's `interactions`, reference §7.1: `actor`, `platform`, `type`,
 * `label`, `parent_interaction_id`, `detail{content, domain, entity, type, detail, resource_id,
 * file_types}`): one per question a person asks (the interaction its plugin resources name) and
 * one per feedback rating, whose parent is the rated answer's question. The field names are the
 * reference's; the `type` values and the `label` of a rating (`helpful`/`unhelpful`) are the
 * simulator's choice, as the notes give no enum.
 */
import { newId } from '../ids';
import { platformUserId } from './plugin-resources';

export const QUESTION_INTERACTION = 'INTERACTION_TYPE_FREE_TEXT';
export const FEEDBACK_INTERACTION = 'INTERACTION_TYPE_FEEDBACK';

export interface Interaction {
  id: string;
  actor: 'USER';
  platform: 'api';
  type: typeof QUESTION_INTERACTION | typeof FEEDBACK_INTERACTION;
  label: string | null;
  parent_interaction_id: string | null;
  user_id: string;
  conversation_id: string;
  detail: { content: string; domain: string; entity: string | null; type: string; detail: string | null; resource_id: string | null; file_types: string[] };
  created_time: string;
  last_updated_time: string;
}

export function questionInteraction(input: { id?: string; email: string; conversationId: string; question: string; at: string }): Interaction {
  return {
    id: input.id ?? newId('int'),
    actor: 'USER',
    platform: 'api',
    type: QUESTION_INTERACTION,
    label: null,
    parent_interaction_id: null,
    user_id: platformUserId(input.email),
    conversation_id: input.conversationId,
    detail: { content: input.question, domain: 'enterprise-search', entity: null, type: 'question', detail: null, resource_id: null, file_types: [] },
    created_time: input.at,
    last_updated_time: input.at,
  };
}

export function feedbackInteraction(input: {
  email: string;
  conversationId: string;
  messageId: string;
  parent: string | null;
  rating: 'helpful' | 'unhelpful';
  comment: string | null;
  at: string;
}): Interaction {
  return {
    id: newId('int'),
    actor: 'USER',
    platform: 'api',
    type: FEEDBACK_INTERACTION,
    label: input.rating,
    parent_interaction_id: input.parent,
    user_id: platformUserId(input.email),
    conversation_id: input.conversationId,
    detail: {
      content: input.comment ?? '',
      domain: 'enterprise-search',
      entity: 'feedback',
      type: input.rating,
      detail: null,
      resource_id: input.messageId,
      file_types: [],
    },
    created_time: input.at,
    last_updated_time: input.at,
  };
}
