import { GatewayError } from '../errors/gateway-error';
import { isStorableText, UNSTORABLE_TEXT } from '../lib/is-storable-text';
import type { CollectionSpec, ComparisonOp, FilterClause } from './collection-spec';

const OPS: readonly ComparisonOp[] = ['eq', 'gt', 'ge', 'lt', 'le'];

/** Tokens: quoted strings ('' escapes a quote), parentheses, or runs of anything else. */
const TOKEN = /\s*(?:'((?:[^']|'')*)'|(\()|(\))|([^\s()']+))/y;

type Token = { kind: 'string'; text: string } | { kind: 'open' } | { kind: 'close' } | { kind: 'word'; text: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < input.length) {
    if (/^\s*$/.test(input.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(input);
    if (!m) throw new Error(`unexpected character at position ${pos + 1} (an unterminated quote?)`);
    pos = TOKEN.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: 'string', text: m[1].replace(/''/g, "'") });
    else if (m[2]) tokens.push({ kind: 'open' });
    else if (m[3]) tokens.push({ kind: 'close' });
    else tokens.push({ kind: 'word', text: m[4] as string });
  }
  return tokens;
}

/** ISO-8601 with a time zone; returned in the stored form (UTC, milliseconds, `Z`). */
export function normalizeDateTime(text: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function describeFilterable<F extends string>(spec: CollectionSpec<F>): string {
  const parts = Object.entries(spec.filterable).map(([name, f]) => {
    const values =
      f.type.kind === 'enum'
        ? ` with ${f.type.values.map((v) => `'${v}'`).join(' or ')}`
        : f.type.kind === 'datetime'
          ? ' with an ISO-8601 date-time'
          : " with a 'quoted string'";
    return `${name} (${f.ops.join(', ')}${values})`;
  });
  return parts.length ? parts.join('; ') : 'none';
}

/**
 * Parses the `$filter` subset the gateway supports: comparisons `<field> <op> <value>` joined by
 * `and`, optionally parenthesised. Anything else is a 400 that says what is accepted.
 */
export function parseFilter<F extends string>(input: string, spec: CollectionSpec<F>): Array<FilterClause<F>> {
  const fail = (why: string): never => {
    throw new GatewayError('INPUT_VALIDATION_FAILED', `Unsupported $filter: ${why}. Accepted: comparisons joined by 'and' on ${describeFilterable(spec)}.`);
  };
  let tokens: Token[];
  try {
    tokens = tokenize(input);
  } catch (e) {
    return fail((e as Error).message);
  }
  // Parentheses only group; with 'and' as the sole connective they can be dropped once balanced.
  let depth = 0;
  const flat: Token[] = [];
  for (const t of tokens) {
    if (t.kind === 'open') depth++;
    else if (t.kind === 'close') {
      if (--depth < 0) fail('unbalanced parentheses');
    } else flat.push(t);
  }
  if (depth !== 0) fail('unbalanced parentheses');
  if (flat.length === 0) fail('the expression is empty');

  const clauses: Array<FilterClause<F>> = [];
  let i = 0;
  while (i < flat.length) {
    const [fieldTok, opTok, valueTok] = [flat[i], flat[i + 1], flat[i + 2]];
    if (!fieldTok || fieldTok.kind !== 'word') return fail(`expected a field name at term ${clauses.length + 1}`);
    const field = spec.filterable[fieldTok.text];
    if (!field) return fail(`'${fieldTok.text}' cannot be filtered on`);
    if (!opTok || opTok.kind !== 'word') return fail(`expected an operator after '${fieldTok.text}'`);
    const op = opTok.text.toLowerCase() as ComparisonOp;
    if (!OPS.includes(op) || !field.ops.includes(op)) return fail(`'${fieldTok.text}' does not support the operator '${opTok.text}'`);
    if (!valueTok || (valueTok.kind !== 'string' && valueTok.kind !== 'word')) return fail(`expected a value after '${fieldTok.text} ${opTok.text}'`);
    let value = valueTok.text;
    if (field.type.kind === 'datetime') {
      const normalized = normalizeDateTime(value);
      if (!normalized) return fail(`'${value}' is not an ISO-8601 date-time with a time zone`);
      value = normalized;
    } else if (valueTok.kind !== 'string') {
      return fail(`the value for '${fieldTok.text}' must be a 'quoted string'`);
    }
    if (field.type.kind === 'enum' && !field.type.values.includes(value)) return fail(`'${value}' is not a valid ${fieldTok.text}`);
    if (!isStorableText(value)) return fail(`the value for '${fieldTok.text}' ${UNSTORABLE_TEXT}`);
    clauses.push({ field: field.field, op, value });
    i += 3;
    if (i < flat.length) {
      const connective = flat[i];
      if (!connective || connective.kind !== 'word' || connective.text.toLowerCase() !== 'and') return fail("terms must be joined by 'and'");
      i++;
      if (i >= flat.length) fail("'and' must be followed by a comparison");
    }
  }
  return clauses;
}
