/**
 * The Data API's OData query options over in-memory records: `$filter` (parsed by
 * `@odata/parser`: eq ne gt ge lt le, and or not, parentheses, contains/startswith/endswith,
 * tolower/toupper; string, number, boolean, null and date literals; paths like
 * `detail/external_resource_id`), `$select`, `$orderby`, `$top`, `$skip`. Anything it cannot
 * read is a 400, never a 500.
 */
import { defaultParser } from '@odata/parser';
import { fastFilter } from './fast-filter';
import { fieldValue, type Rec, type Value } from './field-value';
import { ApiError } from './api-error';
import { hasUnterminatedJsonString } from './unterminated-json-string';

interface Node {
  type: string;
  value: unknown;
  raw?: string;
}

const bad = (message: string): ApiError => new ApiError('bad-request', message);
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';

const ISO = /^\d{4}-\d{2}-\d{2}T/;

/** Total order used by comparisons and `$orderby`: numbers numerically, ISO times by instant, else code units. */
export function compareValues(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string' && ISO.test(a) && ISO.test(b)) {
    const d = Date.parse(a) - Date.parse(b);
    if (!Number.isNaN(d) && d !== 0) return d;
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function literal(node: Node): Value {
  const raw = node.raw ?? '';
  const type = String(node.value);
  if (type === 'Edm.String') return raw.slice(1, -1).replace(/''/g, "'");
  if (type === 'Edm.Boolean') return raw.toLowerCase() === 'true';
  if (type === 'null') return null;
  if (/^Edm\.(S?Byte|Int16|Int32|Int64|Decimal|Double|Single)$/.test(type)) return Number(raw);
  if (type === 'Edm.DateTimeOffset' || type === 'Edm.Date' || type === 'Edm.Guid') return raw;
  throw bad(`unsupported literal ${raw}`);
}

const COMPARE: Record<string, (c: number) => boolean> = {
  EqualsExpression: (c) => c === 0,
  NotEqualsExpression: (c) => c !== 0,
  LesserThanExpression: (c) => c < 0,
  LesserOrEqualsExpression: (c) => c <= 0,
  GreaterThanExpression: (c) => c > 0,
  GreaterOrEqualsExpression: (c) => c >= 0,
};

type Evaluator = (record: Rec) => Value;

function method(node: Node, fields: ReadonlySet<string>): Evaluator {
  const call = node.value as { method: string; parameters: unknown[] };
  const args = call.parameters.map((p) => compile(p, fields));
  const text = (f: Evaluator | undefined, r: Rec): string => String(f?.(r) ?? '');
  const arity = (n: number): void => {
    if (args.length !== n) throw bad(`${call.method} takes ${n} argument(s)`);
  };
  switch (call.method) {
    case 'contains':
      arity(2);
      return (r) => text(args[0], r).includes(text(args[1], r));
    case 'startswith':
      arity(2);
      return (r) => text(args[0], r).startsWith(text(args[1], r));
    case 'endswith':
      arity(2);
      return (r) => text(args[0], r).endsWith(text(args[1], r));
    case 'tolower':
      arity(1);
      return (r) => text(args[0], r).toLowerCase();
    case 'toupper':
      arity(1);
      return (r) => text(args[0], r).toUpperCase();
    default:
      throw bad(`unsupported function ${call.method}`);
  }
}

function compile(input: unknown, fields: ReadonlySet<string>): Evaluator {
  if (!isNode(input)) throw bad('unsupported $filter expression');
  const node = input;
  const pair = node.value as { left: unknown; right: unknown };
  const compare = COMPARE[node.type];
  if (compare) {
    const [l, r] = [compile(pair.left, fields), compile(pair.right, fields)];
    return (rec) => {
      const a = l(rec);
      const b = r(rec);
      if (a === null || a === undefined || b === null || b === undefined)
        return node.type === 'EqualsExpression' ? (a ?? null) === (b ?? null) : node.type === 'NotEqualsExpression' ? (a ?? null) !== (b ?? null) : false;
      return compare(compareValues(a, b));
    };
  }
  switch (node.type) {
    case 'AndExpression':
    case 'OrExpression': {
      const [l, r] = [compile(pair.left, fields), compile(pair.right, fields)];
      return node.type === 'AndExpression' ? (rec) => l(rec) === true && r(rec) === true : (rec) => l(rec) === true || r(rec) === true;
    }
    case 'NotExpression': {
      const inner = compile(node.value, fields);
      return (rec) => inner(rec) !== true;
    }
    case 'BoolParenExpression':
    case 'ParenExpression':
    case 'CommonExpression':
    case 'BoolCommonExpression':
      return compile(node.value, fields);
    case 'FirstMemberExpression':
    case 'MemberExpression': {
      const path = node.raw ?? '';
      if (!fields.has(path)) throw bad(`unknown field ${path}`);
      return (rec) => fieldValue(rec, path);
    }
    case 'Literal': {
      const v = literal(node);
      return () => v;
    }
    case 'MethodCallExpression':
      return method(node, fields);
    default:
      throw bad(`unsupported $filter expression ${node.raw ?? node.type}`);
  }
}

function parseAst(text: string): unknown {
  if (hasUnterminatedJsonString(text)) throw bad('$filter is not a valid OData expression: a string in double quotes never ends');
  let ast: unknown;
  try {
    ast = defaultParser.filter(text);
  } catch (error) {
    throw bad(`$filter is not a valid OData expression: ${(error as Error).message}`);
  }
  if (!ast) throw bad('$filter is not a valid OData expression');
  return ast;
}

/** A predicate for a `$filter` expression over records with these field paths. */
export function parseFilter(text: string, fields: ReadonlySet<string>): (record: Rec) => boolean {
  return compileFilter(text, fields).predicate;
}

export interface CompiledFilter {
  predicate: (record: Rec) => boolean;
  /** The values a matching record must have in one field, when the filter says so (see `equalityKeys`). */
  keys: { path: string; values: Set<string> } | undefined;
}

/** One parse for both: the predicate and the equality keys. */
export function compileFilter(text: string, fields: ReadonlySet<string>): CompiledFilter {
  return fastFilter(text, fields) ?? compileWithParser(text, fields);
}

/** The general path: `@odata/parser`'s tree, compiled. */
export function compileWithParser(text: string, fields: ReadonlySet<string>): CompiledFilter {
  const ast = parseAst(text);
  const evaluate = compile(ast, fields);
  return { predicate: (record) => evaluate(record) === true, keys: keysOf(ast) };
}

/** `$orderby=a desc,b`: a comparator, or undefined when absent. */
export function parseOrderby(text: string, fields: ReadonlySet<string>): (a: Rec, b: Rec) => number {
  const keys = text.split(',').map((part) => {
    const m = /^\s*([A-Za-z_][\w/]*)(?:\s+(asc|desc))?\s*$/i.exec(part);
    if (!m || !fields.has(m[1] as string)) throw bad(`$orderby cannot sort by ${part.trim() || '(nothing)'}`);
    return { path: m[1] as string, sign: m[2]?.toLowerCase() === 'desc' ? -1 : 1 };
  });
  return (a, b) => {
    for (const k of keys) {
      const c = compareValues(fieldValue(a, k.path), fieldValue(b, k.path));
      if (c !== 0) return k.sign * c;
    }
    return 0;
  };
}

/** `$select=a,b`: the top-level fields to keep. */
export function parseSelect(text: string, fields: ReadonlySet<string>): string[] {
  const names = text.split(',').map((s) => s.trim());
  for (const n of names) if (!fields.has(n) || n.includes('/')) throw bad(`$select cannot select ${n || '(nothing)'}`);
  return names;
}

/** A non-negative integer query option. */
export function parseCount(name: string, text: string): number {
  if (!/^\d{1,9}$/.test(text.trim())) throw bad(`${name} must be a non-negative integer`);
  return Number(text.trim());
}

const WRAPPERS = new Set(['BoolParenExpression', 'ParenExpression', 'CommonExpression', 'BoolCommonExpression']);
const unwrap = (input: unknown): Node | undefined => {
  let node = isNode(input) ? input : undefined;
  while (node && WRAPPERS.has(node.type)) node = isNode(node.value) ? node.value : undefined;
  return node;
};

/**
 * The field values a record must have for `$filter` to match it, when the filter says so: `f eq
 * 'a'`, an `or` of those on one field, or an `and` with one such side. Lets the Data API answer
 * from an index (as a real store would) instead of scanning every record; the whole filter is
 * still applied to the candidates. Undefined when the filter has no such shape.
 */
export function equalityKeys(text: string): { path: string; values: Set<string> } | undefined {
  try {
    return keysOf(parseAst(text));
  } catch {
    return undefined;
  }
}

function keysOf(input: unknown): { path: string; values: Set<string> } | undefined {
  const node = unwrap(input);
  if (!node) return undefined;
  const pair = node.value as { left: unknown; right: unknown };
  if (node.type === 'EqualsExpression') {
    const [left, right] = [unwrap(pair.left), unwrap(pair.right)];
    if (
      !left ||
      !right ||
      (left.type !== 'FirstMemberExpression' && left.type !== 'MemberExpression') ||
      right.type !== 'Literal' ||
      String(right.value) !== 'Edm.String'
    )
      return undefined;
    return { path: left.raw ?? '', values: new Set([literal(right) as string]) };
  }
  if (node.type === 'OrExpression') {
    const [l, r] = [keysOf(pair.left), keysOf(pair.right)];
    if (!l || !r || l.path !== r.path) return undefined;
    for (const v of r.values) l.values.add(v);
    return l;
  }
  if (node.type === 'AndExpression') return keysOf(pair.left) ?? keysOf(pair.right);
  return undefined;
}
