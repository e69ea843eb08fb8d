/**
 * The parsed form of an access-policy file (docs/access-policies.md). Conditions are small
 * expression trees over `user.<attribute>` and `doc.<attribute>` references and literals; `at` is
 * the 0-based offset of a node in its condition text, for error messages.
 */
export type Literal = string | number | boolean | readonly string[];

export type Operand = { kind: 'ref'; root: 'user' | 'doc'; name: string; at: number } | { kind: 'literal'; value: Literal; at: number };

export type ComparisonOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { kind: 'compare'; op: ComparisonOp; left: Operand; right: Operand; at: number }
  /** `left in right`: a string or number among a list's items; `negated` for `not in`. */
  | { kind: 'in'; left: Operand; right: Operand; negated: boolean; at: number }
  | { kind: 'and'; parts: readonly Condition[]; at: number }
  | { kind: 'or'; parts: readonly Condition[]; at: number }
  | { kind: 'not'; part: Condition; at: number }
  | { kind: 'constant'; value: boolean; at: number };

export interface PolicyRule {
  name: string;
  /** The user holds at least one of these roles (empty: no role condition). */
  roles: readonly string[];
  /** A condition over user and document attributes (`constant true` when the rule has none). */
  allow: Condition;
  /** The rule's `allow` text as written, for `policy explain`. */
  source?: string;
}

export interface Policy {
  version: 1;
  rules: readonly PolicyRule[];
}

/**
 * The inputs a policy reads. `roles` is what `user.roles` names (the adapter's role list); every
 * other `user.<name>` and `doc.<name>` reads `attributes`.
 */
export interface PolicySubject {
  attributes?: Readonly<Record<string, Literal>>;
  roles?: readonly string[];
}
