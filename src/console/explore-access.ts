import { GatewayError } from '../errors/gateway-error';
import { EXPLORER_PAGE_MAX, type AccessExplorer, type FileAnswer, type UserAnswer } from './access-explorer';

/** The explorer page's question, from its query string: `user` (an email or id) or `file` (a file id), and the page. */
export interface ExplorerQuestion {
  user?: string;
  file?: string;
  offset: number;
  limit: number;
  /** The `next` cursor of the page before: the page starts after that id (keyset paging; `offset` is then ignored). */
  after?: string;
}

/** What the explorer page (and its JSON) shows: the question, and its answer or why there is none. */
export interface ExplorerData {
  question: ExplorerQuestion;
  file?: FileAnswer;
  user?: UserAnswer;
  /** The user or file staging does not have. */
  notFound?: string;
}

const MAX_REF = 1000;

function whole(query: Readonly<Record<string, string>>, name: 'offset' | 'limit', fallback: number, max: number): number {
  const text = query[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) > max)
    throw new GatewayError('INPUT_VALIDATION_FAILED', `\`${name}\` takes a whole number from 0 to ${max} (got ${JSON.stringify(text.slice(0, 40))}).`);
  return Number(text);
}

/** Reads the question; bad input is an INPUT_VALIDATION_FAILED naming the field, never a 500. */
export function explorerQuestion(query: Readonly<Record<string, string>>): ExplorerQuestion {
  const user = query.user?.trim() || undefined;
  const file = query.file?.trim() || undefined;
  const after = query.after || undefined;
  if (user && file) throw new GatewayError('INPUT_VALIDATION_FAILED', 'Ask about a `user` or a `file`, not both at once.');
  for (const [name, value] of [
    ['user', user],
    ['file', file],
    ['after', after],
  ] as const)
    if (value && value.length > MAX_REF) throw new GatewayError('INPUT_VALIDATION_FAILED', `\`${name}\` is longer than ${MAX_REF} characters.`);
  const question: ExplorerQuestion = { offset: whole(query, 'offset', 0, 1_000_000_000), limit: whole(query, 'limit', 50, EXPLORER_PAGE_MAX) };
  if (question.limit === 0) throw new GatewayError('INPUT_VALIDATION_FAILED', `\`limit\` takes a whole number from 1 to ${EXPLORER_PAGE_MAX}.`);
  if (user) question.user = user;
  if (file) question.file = file;
  if (after) question.after = after;
  return question;
}

/** The explorer page's data: "what can this user see" or "who can see this file", one page of it, with the grant paths. */
export async function exploreAccess(explorer: AccessExplorer, query: Readonly<Record<string, string>>): Promise<ExplorerData> {
  const question = explorerQuestion(query);
  const page = { offset: question.offset, limit: question.limit, ...(question.after ? { after: question.after } : {}) };
  if (question.user) {
    const user = await explorer.whatCanSee(question.user, page);
    return user ? { question, user } : { question, notFound: `No served user has the email or id ${question.user}.` };
  }
  if (question.file) {
    const file = await explorer.whoCanSee(question.file, page);
    return file ? { question, file } : { question, notFound: `No staged file has the id ${question.file}.` };
  }
  return { question };
}
