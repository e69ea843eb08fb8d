import type { ComparisonOp, Condition, Operand } from './policy-types';

/** A condition the grammar refuses; `at` is the 0-based offset in the condition text. */
export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
    this.name = 'ConditionSyntaxError';
  }
}

type Token =
  | { kind: 'ref'; root: 'user' | 'doc'; name: string; at: number }
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'op'; text: string; at: number }
  | { kind: 'end'; at: number };

const MAX_DEPTH = 64;
const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'true', 'false']);
const COMPARISONS: readonly string[] = ['==', '!=', '<=', '>=', '<', '>'];
/** Tokens people reach for that the grammar spells differently: refused with the right spelling. */
const SPELLED: Record<string, string> = { '&&': "'and'", '||': "'or'", '!': "'not'", '=': "'=='", '===': "'=='", '!==': "'!='", '<>': "'!='" };
const TOKEN =
  /\s*(?:(-?\d+(?:\.\d+)?)(?![\w.])|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|(===|!==|==|!=|<=|>=|<>|&&|\|\||[<>()[\],!=]))/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    const rest = /\s*/y;
    rest.lastIndex = pos;
    rest.exec(text);
    if (rest.lastIndex >= text.length) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    const at = rest.lastIndex;
    if (!m)
      throw new ConditionSyntaxError(`unexpected '${text.slice(at, at + 12).split(/\s/)[0]}' (operators are == != < <= > >= in, not in, and, or, not)`, at);
    pos = TOKEN.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: 'number', value: Number(m[1]), at });
    else if (m[2] !== undefined || m[3] !== undefined)
      tokens.push({ kind: 'string', value: (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1').normalize('NFC'), at });
    else if (m[4] !== undefined) tokens.push(wordToken(m[4], at));
    else {
      const op = m[5] as string;
      if (SPELLED[op]) throw new ConditionSyntaxError(`'${op}' is not supported: write ${SPELLED[op]}`, at);
      tokens.push({ kind: 'op', text: op, at });
    }
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

function wordToken(word: string, at: number): Token {
  const parts = word.split('.');
  if (parts.length === 1) {
    if (KEYWORDS.has(word)) return { kind: 'word', text: word, at };
    throw new ConditionSyntaxError(`unknown name '${word}': refer to attributes as user.<name> or doc.<name>, quote text as 'text'`, at);
  }
  const [root, ...rest] = parts;
  if ((root !== 'user' && root !== 'doc') || rest.length !== 1) {
    throw new ConditionSyntaxError(`unknown reference '${word}': only user.<name> and doc.<name> are supported`, at);
  }
  return { kind: 'ref', root, name: rest[0] as string, at };
}

function describe(t: Token): string {
  if (t.kind === 'end') return 'the end of the condition';
  if (t.kind === 'ref') return `'${t.root}.${t.name}'`;
  if (t.kind === 'string') return `'${t.value}'`;
  if (t.kind === 'number') return String(t.value);
  return `'${t.text}'`;
}

const isWord = (t: Token, w: string): boolean => t.kind === 'word' && t.text === w;
const isOp = (t: Token, o: string): boolean => t.kind === 'op' && t.text === o;

/** Recursive descent over the tokens: `or` of `and` of (`not`) tests and parenthesised conditions. */
class ConditionParser {
  private i = 0;
  /** How deep `not` and parentheses nest here: bounded, so a hostile file is refused, not a stack overflow. */
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parse(): Condition {
    const condition = this.chain('or');
    const end = this.peek();
    if (end.kind !== 'end') throw new ConditionSyntaxError(`unexpected ${describe(end)}: join conditions with 'and' or 'or'`, end.at);
    return condition;
  }

  private peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private next(): Token {
    return this.tokens[this.i++] as Token;
  }

  private chain(kind: 'or' | 'and'): Condition {
    const sub = (): Condition => (kind === 'or' ? this.chain('and') : this.unary());
    const first = sub();
    const parts = [first];
    while (isWord(this.peek(), kind)) {
      this.next();
      parts.push(sub());
    }
    return parts.length === 1 ? first : { kind, parts, at: first.at };
  }

  private unary(): Condition {
    const t = this.peek();
    if (this.depth >= MAX_DEPTH) throw new ConditionSyntaxError(`the condition is nested more than ${MAX_DEPTH} deep (parentheses and 'not')`, t.at);
    this.depth++;
    try {
      return this.nested(t);
    } finally {
      this.depth--;
    }
  }

  private nested(t: Token): Condition {
    if (isWord(t, 'not')) {
      this.next();
      return { kind: 'not', part: this.unary(), at: t.at };
    }
    if (isOp(t, '(')) {
      this.next();
      const inner = this.chain('or');
      const close = this.next();
      if (!isOp(close, ')')) throw new ConditionSyntaxError(`expected ')' but found ${describe(close)}`, close.at);
      return inner;
    }
    return this.test();
  }

  private test(): Condition {
    const left = this.operand();
    const t = this.next();
    if (isWord(t, 'in') || (isWord(t, 'not') && isWord(this.peek(), 'in'))) {
      const negated = isWord(t, 'not');
      if (negated) this.next();
      return checkIn({ kind: 'in', left, right: this.operand(), negated, at: left.at });
    }
    if (t.kind === 'op' && COMPARISONS.includes(t.text)) {
      return checkCompare({ kind: 'compare', op: t.text as ComparisonOp, left, right: this.operand(), at: left.at });
    }
    const ends = t.kind === 'end' || isWord(t, 'and') || isWord(t, 'or') || isOp(t, ')');
    if (left.kind === 'literal' && typeof left.value === 'boolean' && ends) {
      this.i--;
      return { kind: 'constant', value: left.value, at: left.at };
    }
    throw new ConditionSyntaxError(`expected a comparison (== != < <= > >=), 'in' or 'not in' after ${describeOperand(left)} but found ${describe(t)}`, t.at);
  }

  private operand(): Operand {
    const t = this.next();
    if (t.kind === 'ref') return { kind: 'ref', root: t.root, name: t.name, at: t.at };
    if (t.kind === 'string' || t.kind === 'number') return { kind: 'literal', value: t.value, at: t.at };
    if (isWord(t, 'true') || isWord(t, 'false')) return { kind: 'literal', value: isWord(t, 'true'), at: t.at };
    if (isOp(t, '[')) return { kind: 'literal', value: this.listLiteral(), at: t.at };
    throw new ConditionSyntaxError(`expected an attribute (user.<name>, doc.<name>) or a value but found ${describe(t)}`, t.at);
  }

  private listLiteral(): string[] {
    const items: string[] = [];
    if (isOp(this.peek(), ']')) {
      this.next();
      return items;
    }
    for (;;) {
      const t = this.next();
      if (t.kind !== 'string' && t.kind !== 'number') throw new ConditionSyntaxError(`list items are quoted texts or numbers; found ${describe(t)}`, t.at);
      items.push(String(t.value));
      const sep = this.next();
      if (isOp(sep, ']')) return items;
      if (!isOp(sep, ',')) throw new ConditionSyntaxError(`expected ',' or ']' in a list but found ${describe(sep)}`, sep.at);
    }
  }
}

/**
 * Parses a condition (grammar in docs/access-policies.md). Refuses, with the offset, anything
 * else and tests that cannot mean anything (a list compared with `<`, two constants, `true`
 * ordered against a number).
 */
export function parseCondition(text: string): Condition {
  return new ConditionParser(tokenize(text)).parse();
}

function describeOperand(o: Operand): string {
  return o.kind === 'ref' ? `${o.root}.${o.name}` : JSON.stringify(o.value);
}

const isList = (o: Operand): boolean => (o.kind === 'literal' && Array.isArray(o.value)) || (o.kind === 'ref' && o.root === 'user' && o.name === 'roles');

function checkCompare(c: Extract<Condition, { kind: 'compare' }>): Condition {
  const { left, right, op } = c;
  if (left.kind === 'literal' && right.kind === 'literal')
    throw new ConditionSyntaxError(`${describeOperand(left)} ${op} ${describeOperand(right)} compares two constants`, c.at);
  for (const o of [left, right]) {
    if (isList(o)) throw new ConditionSyntaxError(`${describeOperand(o)} is a list: test membership with 'in' (e.g. 'x' in ${describeOperand(o)})`, o.at);
    if (op !== '==' && op !== '!=' && o.kind === 'literal' && typeof o.value === 'boolean') {
      throw new ConditionSyntaxError(`'${op}' orders numbers or texts, not ${String(o.value)}`, o.at);
    }
  }
  return c;
}

function checkIn(c: Extract<Condition, { kind: 'in' }>): Condition {
  const { left, right } = c;
  if (left.kind === 'literal' && right.kind === 'literal')
    throw new ConditionSyntaxError(`${describeOperand(left)} in ${describeOperand(right)} tests two constants`, c.at);
  if (left.kind === 'literal' && typeof left.value !== 'string' && typeof left.value !== 'number') {
    throw new ConditionSyntaxError(`the left side of 'in' is a text, a number or an attribute; found ${describeOperand(left)}`, left.at);
  }
  if (right.kind === 'literal' && !Array.isArray(right.value)) {
    throw new ConditionSyntaxError(`the right side of 'in' is a list ([...]) or an attribute holding one; found ${describeOperand(right)}`, right.at);
  }
  return c;
}
