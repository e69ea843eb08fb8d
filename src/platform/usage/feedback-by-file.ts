import type { DataApiClient } from '../data-api-client';
import { allOf, anyOf, filterBatches } from './odata-filter';

/**
 * Feedback ratings in the Data API's `interactions`: `label` says helpful or unhelpful and
 * `parent_interaction_id` names the rated answer's question, the `interaction_id` of the plugin
 * resources that answer surfaced. (The reference names these fields but gives no `type` enum;
 * this is the platform simulator's.)
 */
export const FEEDBACK_INTERACTION_TYPE = 'INTERACTION_TYPE_FEEDBACK';

export interface FeedbackCounts {
  helpful: number;
  unhelpful: number;
}

export interface FeedbackOptions {
  data: DataApiClient;
  scope?: string;
  budget: { maxChars: number; maxTerms: number };
}

/**
 * Per gateway file, the helpful and unhelpful ratings of answers that cited it: the ratings (one
 * listing, usually short), then the cited records of the rated questions, many questions per
 * request.
 */
export async function feedbackByFile(options: FeedbackOptions): Promise<{ byFile: Map<string, FeedbackCounts>; ratings: number }> {
  const byQuestion = new Map<string, FeedbackCounts>();
  let ratings = 0;
  const query = { filter: `type eq '${FEEDBACK_INTERACTION_TYPE}'`, select: ['id', 'label', 'parent_interaction_id'] };
  for await (const rating of options.data.list<{ label?: unknown; parent_interaction_id?: unknown }>('interactions', query)) {
    const label = String(rating.label ?? '').toLowerCase();
    if ((label !== 'helpful' && label !== 'unhelpful') || typeof rating.parent_interaction_id !== 'string') continue;
    ratings += 1;
    const entry = byQuestion.get(rating.parent_interaction_id) ?? { helpful: 0, unhelpful: 0 };
    entry[label] += 1;
    byQuestion.set(rating.parent_interaction_id, entry);
  }
  const byFile = new Map<string, FeedbackCounts>();
  for (const batch of filterBatches('interaction_id', [...byQuestion.keys()], options.budget)) {
    const filter = allOf(options.scope, 'cited eq true', anyOf('interaction_id', batch)) as string;
    for await (const record of options.data.list<{ interaction_id?: unknown; detail?: { external_resource_id?: unknown } }>('plugin-resources', {
      filter,
      select: ['interaction_id', 'detail'],
    })) {
      const rated = byQuestion.get(String(record.interaction_id));
      const file = record.detail?.external_resource_id;
      if (!rated || typeof file !== 'string') continue;
      const entry = byFile.get(file) ?? { helpful: 0, unhelpful: 0 };
      entry.helpful += rated.helpful;
      entry.unhelpful += rated.unhelpful;
      byFile.set(file, entry);
    }
  }
  return { byFile, ratings };
}

/** Ids of cited files among `scope`'s records that `known` does not hold (files the gateway no longer lists). */
export async function citedOutside(options: FeedbackOptions, known: ReadonlySet<string>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const record of options.data.list<{ detail?: { external_resource_id?: unknown } }>('plugin-resources', {
    filter: allOf(options.scope, 'cited eq true') as string,
    select: ['detail'],
  })) {
    const file = record.detail?.external_resource_id;
    if (typeof file === 'string' && !known.has(file)) out.set(file, (out.get(file) ?? 0) + 1);
  }
  return out;
}
