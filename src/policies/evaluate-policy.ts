import type { Condition, Literal, Operand, Policy, PolicyRule, PolicySubject } from './policy-types';

/**
 * Three-valued truth: a test on an absent attribute, or on values of different types, is
 * `unknown`, and only `true` grants. `not unknown` stays unknown, so negation never grants access
 * because an attribute is missing (docs/access-policies.md, "Negation").
 */
export type Truth = true | false | 'unknown';

export function resolveOperand(o: Operand, user: PolicySubject, doc: PolicySubject): Literal | undefined {
  if (o.kind === 'literal') return o.value;
  const subject = o.root === 'user' ? user : doc;
  if (o.root === 'user' && o.name === 'roles') return subject.roles === undefined ? undefined : canonical(subject.roles);
  return ownAttribute(subject, o.name);
}

/**
 * A value in Unicode normal form C: texts a source stores decomposed ('u' + combining diaeresis)
 * equal the composed ones a policy file holds, so `!=` and `not in` never grant on a spelling.
 */
export function canonical<T extends Literal>(value: T): T {
  if (typeof value === 'string') return value.normalize('NFC') as T;
  if (Array.isArray(value)) return (value as readonly string[]).map((v) => (typeof v === 'string' ? v.normalize('NFC') : v)) as unknown as T;
  return value;
}

/** An attribute the subject has itself (never one inherited from Object.prototype, such as `constructor`), in normal form C. */
export function ownAttribute(subject: PolicySubject, name: string): Literal | undefined {
  const attributes = subject.attributes;
  return attributes !== undefined && Object.hasOwn(attributes, name) ? canonical(attributes[name] as Literal) : undefined;
}

const NUMERAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function compareValues(op: string, a: Literal, b: Literal): Truth {
  if (Array.isArray(a) || Array.isArray(b) || typeof a !== typeof b) return 'unknown';
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  if (typeof a === 'boolean') return 'unknown';
  // Two numerals held as text ('9', '10': a numeric column a driver returns as text) would order as
  // texts, '9' after '10', and grant above a clearance: their order is refused instead.
  if (typeof a === 'string' && NUMERAL.test(a) && NUMERAL.test(b as string)) return 'unknown';
  const x = a as string | number;
  const y = b as string | number;
  if (op === '<') return x < y;
  if (op === '<=') return x <= y;
  if (op === '>') return x > y;
  return x >= y;
}

function member(item: Literal, list: Literal, negated: boolean): Truth {
  if (!Array.isArray(list) || (typeof item !== 'string' && typeof item !== 'number')) return 'unknown';
  const found = (list as readonly string[]).includes(String(item));
  return negated ? !found : found;
}

/** The truth of one test (a comparison or a membership), from resolved values. */
export function testTruth(c: Extract<Condition, { kind: 'compare' | 'in' }>, left: Literal | undefined, right: Literal | undefined): Truth {
  if (left === undefined || right === undefined) return 'unknown';
  return c.kind === 'compare' ? compareValues(c.op, left, right) : member(left, right, c.negated);
}

export function conditionTruth(c: Condition, user: PolicySubject, doc: PolicySubject): Truth {
  switch (c.kind) {
    case 'constant':
      return c.value;
    case 'compare':
    case 'in':
      return testTruth(c, resolveOperand(c.left, user, doc), resolveOperand(c.right, user, doc));
    case 'not': {
      const t = conditionTruth(c.part, user, doc);
      return t === 'unknown' ? t : !t;
    }
    case 'and':
      return junctionTruth(c.parts, user, doc, false);
    case 'or':
      return junctionTruth(c.parts, user, doc, true);
  }
}

/**
 * Three-valued `and` (`decisive` false) or `or` (`decisive` true): one decisive part settles it;
 * else any unknown part makes it unknown; else it is the other value.
 */
function junctionTruth(parts: readonly Condition[], user: PolicySubject, doc: PolicySubject, decisive: boolean): Truth {
  let result: Truth = !decisive;
  for (const part of parts) {
    const t = conditionTruth(part, user, doc);
    if (t === decisive) return decisive;
    if (t === 'unknown') result = 'unknown';
  }
  return result;
}

/** The rule's role condition: no roles listed, or the user holds one of them (absent roles: unknown). */
export function rolesTruth(rule: PolicyRule, user: PolicySubject): Truth {
  if (rule.roles.length === 0) return true;
  if (user.roles === undefined) return 'unknown';
  const held = canonical(user.roles);
  return rule.roles.some((r) => held.includes(r.normalize('NFC')));
}

export function ruleGrants(rule: PolicyRule, user: PolicySubject, doc: PolicySubject): boolean {
  return rolesTruth(rule, user) === true && conditionTruth(rule.allow, user, doc) === true;
}

/** The policy's direct answer for one (user, document) pair; the oracle the compiled groups must match. */
export function policyGrants(policy: Policy, user: PolicySubject, doc: PolicySubject): boolean {
  return policy.rules.some((rule) => ruleGrants(rule, user, doc));
}
