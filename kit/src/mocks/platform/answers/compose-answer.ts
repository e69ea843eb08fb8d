/**
 * The assistant's final reply to a question: a short answer in rich text whose every sentence
 * drawn from a file is followed by a content reference to that file's citation. Citations are
 * unique; references are ascending by offset (the character position just after the sentence
 * they support, in the reply text). Only hits given here can be cited: the caller searched
 * within what the asker may VIEW.
 */
import type { SearchHit } from '../corpus-index';
import { MIME, baseMime } from '../ingest/extract-text';
import { newId } from '../ids';
import { plainText, richText, type Action, type Citation, type Content, type ContentReference } from './message-types';

export interface ComposedAnswer {
  content: Content;
  citations: Citation[];
  content_references: ContentReference[];
  actions: Action[];
  /** Files cited (by gateway id), in citation order. */
  cited: SearchHit[];
}

const KIND: Record<string, string> = {
  [MIME.html]: 'Article',
  [MIME.pdf]: 'PDF',
  [MIME.docx]: 'Word document',
  [MIME.pptx]: 'Presentation',
  [MIME.txt]: 'Text file',
};

function citationOf(hit: SearchHit): Citation {
  const f = hit.file;
  const attributes = [{ key: 'type', value: KIND[baseMime(f.mimeType)] ?? f.mimeType }];
  if (f.lastModified) attributes.push({ key: 'last_modified', value: f.lastModified });
  return { citation_id: newId('cite'), url: f.externalUrl, display: { title: plainText(f.name), body: plainText(hit.snippet), attributes } };
}

export interface AnswerInput {
  question: string;
  /** Hits to cite, best first (already restricted to what the asker may VIEW). */
  hits: SearchHit[];
  isCommonmark: boolean;
  /** Callback id of a "show more" action, when more hits than these exist. */
  moreCallbackId?: string;
}

export function composeAnswer(input: AnswerInput): ComposedAnswer {
  if (input.hits.length === 0) {
    const text = `I could not find anything you have access to about "${input.question}". Try other words, or ask the owner of the document to share it with you.`;
    return { content: richText(text, input.isCommonmark), citations: [], content_references: [], actions: [], cited: [] };
  }
  const citations = input.hits.map(citationOf);
  const refs: ContentReference[] = [];
  const first = input.hits[0] as SearchHit;
  let text = `The most relevant document is **${first.file.name}**.`;
  refs.push({ citation_id: (citations[0] as Citation).citation_id, offset: text.length });
  text += '\n';
  input.hits.forEach((hit, i) => {
    text += `\n- ${hit.file.name}: ${hit.snippet}`;
    refs.push({ citation_id: (citations[i] as Citation).citation_id, offset: text.length });
  });
  const actions: Action[] = input.hits.map((h) => ({ type: 'URL_ACTION', label: `Open ${h.file.name}`, url_action: { url: h.file.externalUrl } }));
  if (input.moreCallbackId) actions.push({ type: 'CALLBACK_ACTION', label: 'Show more results', callback_action: { callback_id: input.moreCallbackId } });
  return { content: richText(text, input.isCommonmark), citations, content_references: refs, actions, cited: input.hits };
}
