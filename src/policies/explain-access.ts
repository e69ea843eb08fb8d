import { conditionTruth, resolveOperand, rolesTruth, testTruth, type Truth } from './evaluate-policy';
import type { Condition, Literal, Operand, Policy, PolicyRule, PolicySubject } from './policy-types';

export interface RuleVerdict {
  rule: string;
  grants: boolean;
  /** Why: the tests that held (a grant), or the first one that failed (a denial). */
  because: string;
}

export interface AccessExplanation {
  granted: boolean;
  /** Every rule, in file order. */
  rules: RuleVerdict[];
}

function show(value: Literal | undefined): string {
  if (value === undefined) return 'absent';
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  return JSON.stringify(value);
}

function operandText(o: Operand, user: PolicySubject, doc: PolicySubject): string {
  if (o.kind === 'literal') return show(o.value);
  return `${o.root}.${o.name} (${show(resolveOperand(o, user, doc))})`;
}

const truthText = (t: Truth): string => (t === 'unknown' ? 'unknown (an attribute is absent or the types differ), which never grants' : String(t));

/** One line on why a condition holds or not, naming the values it read. */
function explainCondition(c: Condition, user: PolicySubject, doc: PolicySubject): string {
  const truth = conditionTruth(c, user, doc);
  switch (c.kind) {
    case 'constant':
      return String(c.value);
    case 'compare':
    case 'in': {
      const op = c.kind === 'compare' ? c.op : c.negated ? 'not in' : 'in';
      const t = testTruth(c, resolveOperand(c.left, user, doc), resolveOperand(c.right, user, doc));
      return `${operandText(c.left, user, doc)} ${op} ${operandText(c.right, user, doc)} is ${truthText(t)}`;
    }
    case 'not':
      return `not (${explainCondition(c.part, user, doc)}) is ${truthText(truth)}`;
    case 'and': {
      if (truth === true) return c.parts.map((p) => explainCondition(p, user, doc)).join(' and ');
      const failed = c.parts.find((p) => conditionTruth(p, user, doc) === false) ?? c.parts.find((p) => conditionTruth(p, user, doc) !== true);
      return failed ? explainCondition(failed, user, doc) : truthText(truth);
    }
    case 'or': {
      const held = c.parts.find((p) => conditionTruth(p, user, doc) === true);
      return held ? explainCondition(held, user, doc) : `none holds: ${c.parts.map((p) => explainCondition(p, user, doc)).join('; ')}`;
    }
  }
}

export function explainRule(rule: PolicyRule, user: PolicySubject, doc: PolicySubject): RuleVerdict {
  const roles = rolesTruth(rule, user);
  const roleText = rule.roles.length ? `the user holds one of the roles ${rule.roles.join(', ')}` : '';
  if (roles !== true) {
    const why =
      user.roles === undefined
        ? 'the user has no roles (absent)'
        : `the user holds none of the roles ${rule.roles.join(', ')} (has: ${user.roles.join(', ') || 'none'})`;
    return { rule: rule.name, grants: false, because: why };
  }
  const truth = conditionTruth(rule.allow, user, doc);
  const condition = rule.allow.kind === 'constant' && rule.allow.value ? '' : explainCondition(rule.allow, user, doc);
  // A denial names only what failed: the roles held, so the condition did not.
  const because = truth === true ? [roleText, condition].filter(Boolean).join(' and ') : condition;
  return { rule: rule.name, grants: truth === true, because };
}

/** Evaluates every rule for one (user, document) pair, saying which grant and why the others do not. */
export function explainAccess(policy: Policy, user: PolicySubject, doc: PolicySubject): AccessExplanation {
  const rules = policy.rules.map((rule) => explainRule(rule, user, doc));
  return { granted: rules.some((r) => r.grants), rules };
}
