/**
 * A fast path for the filters the operator tools send in bulk: conjunctions of `or` lists of
 * `<field> eq '<string>'` and `<field> eq true|false`. `@odata/parser` takes ~70 ms for a
 * 100-term `or` list, which would make the simulator, not the client, the cost a benchmark
 * measures. Anything else (or anything this scanner is unsure of) is left to the parser; a
 * property test holds the two to the same answers.
 */
import { fieldValue } from './field-value';

type Rec = Record<string, unknown>;
/** A literal as the comparison sees it: the parser's equality on these shapes is equality of the texts. */
type Term = { path: string; value: string; literal: 'string' | 'boolean' };

const TERM = /^\s*([A-Za-z_][\w/]*)\s+eq\s+(?:'((?:[^']|'')*)'|(true|false))\s*$/;

/** Splits at a keyword (` and `, ` or `) outside quotes and parentheses; undefined when unbalanced. */
function splitTop(text: string, keyword: 'and' | 'or'): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  const needle = ` ${keyword} `;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && text.startsWith(needle, i)) {
      parts.push(text.slice(start, i));
      start = i + needle.length;
      i += needle.length - 1;
    }
    if (depth < 0) return undefined;
  }
  if (quoted || depth !== 0) return undefined;
  parts.push(text.slice(start));
  return parts;
}

function term(text: string, fields: ReadonlySet<string>): Term | undefined {
  const m = TERM.exec(text);
  if (!m || !fields.has(m[1] as string)) return undefined;
  return m[3] !== undefined
    ? { path: m[1] as string, value: m[3], literal: 'boolean' }
    : { path: m[1] as string, value: (m[2] as string).replace(/''/g, "'"), literal: 'string' };
}

/** One conjunct: an or-list of terms on one field, optionally in parentheses. */
interface OrList {
  path: string;
  values: Set<string>;
  literal: Term['literal'];
}

function orList(text: string, fields: ReadonlySet<string>): OrList | undefined {
  let inner = text.trim();
  if (inner.startsWith('(') && inner.endsWith(')') && splitTop(inner.slice(1, -1), 'or') !== undefined) inner = inner.slice(1, -1);
  const parts = splitTop(inner, 'or');
  if (!parts) return undefined;
  const terms = parts.map((p) => term(p, fields));
  const first = terms[0];
  if (!first || terms.some((t) => !t || t.path !== first.path || t.literal !== first.literal)) return undefined;
  return { path: first.path, literal: first.literal, values: new Set(terms.map((t) => (t as Term).value)) };
}

/** The predicate and equality keys of a filter of the fast shape, or undefined. */
export function fastFilter(
  text: string,
  fields: ReadonlySet<string>,
): { predicate: (r: Rec) => boolean; keys: { path: string; values: Set<string> } | undefined } | undefined {
  const conjuncts = splitTop(text, 'and')?.map((c) => orList(c, fields));
  if (!conjuncts || conjuncts.some((c) => c === undefined)) return undefined;
  const lists = conjuncts as OrList[];
  const predicate = (r: Rec): boolean =>
    lists.every(({ path, values }) => {
      const v = fieldValue(r, path);
      return v !== null && v !== undefined && values.has(String(v));
    });
  const keyed = lists.find((l) => l.literal === 'string');
  return { predicate, keys: keyed ? { path: keyed.path, values: keyed.values } : undefined };
}
