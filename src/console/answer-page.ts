/**
 * One page of a longer answer: `offset` or `after` and `limit` as asked (limit clamped), `total` of
 * the whole answer, and `next`: the cursor of the page after this one (the last id shown), null on
 * the last page. Paging by `after` (keyset: the items after that id in the answer's order) costs
 * the same at any depth; `offset` reads and skips every item before the page.
 */
export interface AnswerPage {
  offset: number;
  limit: number;
  total: number;
  after?: string;
  next: string | null;
}

export interface PageRequest {
  offset?: number;
  limit?: number;
  /** A `next` cursor: the page starts after this id (a file's for what-can, a person's for who-can-see); `offset` is then ignored. */
  after?: string;
}

export const EXPLORER_PAGE_DEFAULT = 50;
export const EXPLORER_PAGE_MAX = 200;

export function pageOf(request: PageRequest, total = 0): AnswerPage {
  const limit = Math.min(Math.max(Math.trunc(request.limit ?? EXPLORER_PAGE_DEFAULT), 1), EXPLORER_PAGE_MAX);
  const offset = request.after === undefined ? Math.max(Math.trunc(request.offset ?? 0), 0) : 0;
  return { offset, limit, total, ...(request.after === undefined ? {} : { after: request.after }), next: null };
}

/** The page's rows (of the `limit + 1` read) and its `next` cursor: the last shown id when a row follows. */
export function cut<T extends { id: string }>(rows: T[], page: AnswerPage): { rows: T[]; next: string | null } {
  const shown = rows.slice(0, page.limit);
  return { rows: shown, next: rows.length > page.limit ? (shown[shown.length - 1] as T).id : null };
}

/** SQL after the answer's `order by`: the keyset condition goes in the query; this pages by limit (one more, to know if a page follows) and offset. */
export const LIMIT_OFFSET = 'limit ? offset ?';
