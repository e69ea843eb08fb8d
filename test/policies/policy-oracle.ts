import fc from 'fast-check';

/**
 * An independent model of access policies for property tests: it generates condition trees,
 * renders them in the policy grammar (docs/access-policies.md), and evaluates them directly with
 * the documented three-valued semantics, sharing no code with src/policies.
 */
export type Value = string | number | boolean | string[];
export type Subject = { attributes: Record<string, Value>; roles?: string[] };
export type Operand = { ref: string } | { lit: Value };
export type Cond =
  | { t: 'cmp'; op: '==' | '!=' | '<' | '<=' | '>' | '>='; l: Operand; r: Operand }
  | { t: 'in'; l: Operand; r: Operand; neg: boolean }
  | { t: 'and'; parts: Cond[] }
  | { t: 'or'; parts: Cond[] }
  | { t: 'not'; part: Cond };
export type Rule = { name: string; roles?: string[]; allow?: Cond };

type T = true | false | 'unknown';

const DEPTS = ['eng', 'ops', 'hr'];
const KINDS = ['guide', 'memo', 'secret'];
const TAGS = ['a', 'b', 'c'];
const ROLES = ['editor', 'viewer', 'admin'];

const scalarOperands: Operand[] = [
  { ref: 'user.dept' },
  { ref: 'user.clearance' },
  { ref: 'doc.dept' },
  { ref: 'doc.level' },
  { ref: 'doc.kind' },
  { lit: 'eng' },
  { lit: 'guide' },
  { lit: '10' },
  { lit: 2 },
  { lit: 1 },
  { lit: true },
];
const memberLeft: Operand[] = [
  { ref: 'user.dept' },
  { ref: 'doc.dept' },
  { ref: 'doc.kind' },
  { ref: 'doc.level' },
  { lit: 'a' },
  { lit: 'editor' },
  { lit: 'b' },
];
const listRight: Operand[] = [
  { ref: 'user.projects' },
  { ref: 'doc.tags' },
  { ref: 'user.roles' },
  { lit: ['eng', 'ops'] },
  { lit: ['a', 'b'] },
  { lit: ['guide', 'memo'] },
];

const isLit = (o: Operand): boolean => 'lit' in o;

export const condArb: fc.Arbitrary<Cond> = fc.letrec<{ cond: Cond }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .record({ op: fc.constantFrom('==', '!=', '<', '<=', '>', '>=' as const), l: fc.constantFrom(...scalarOperands), r: fc.constantFrom(...scalarOperands) })
      .filter(({ op, l, r }) => !(isLit(l) && isLit(r)) && !(op !== '==' && op !== '!=' && [l, r].some((o) => 'lit' in o && typeof o.lit === 'boolean')))
      .map(({ op, l, r }): Cond => ({ t: 'cmp', op, l, r })),
    fc
      .record({ l: fc.constantFrom(...memberLeft), r: fc.constantFrom(...listRight), neg: fc.boolean() })
      .filter(({ l, r }) => !(isLit(l) && isLit(r)))
      .map(({ l, r, neg }): Cond => ({ t: 'in', l, r, neg })),
    fc.record({ t: fc.constantFrom('and' as const, 'or' as const), parts: fc.array(tie('cond'), { minLength: 2, maxLength: 3 }) }).map((c) => c as Cond),
    tie('cond').map((part): Cond => ({ t: 'not', part })),
  ),
})).cond;

export const rulesArb: fc.Arbitrary<Rule[]> = fc
  .array(
    fc.record(
      { roles: fc.option(fc.subarray(ROLES, { minLength: 1 }), { nil: undefined }), allow: fc.option(condArb, { nil: undefined }) },
      { requiredKeys: [] },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((rules) =>
    rules.map((r, i) => ({
      name: `rule-${i}`,
      ...(r.roles ? { roles: r.roles } : {}),
      ...(r.allow || !r.roles ? { allow: r.allow ?? { t: 'cmp', op: '==', l: { ref: 'user.dept' }, r: { ref: 'doc.dept' } } } : {}),
    })),
  );

const maybe = <V>(arb: fc.Arbitrary<V>) => fc.option(arb, { nil: undefined, freq: 4 });
const withoutAbsent = (o: Record<string, Value | undefined>): Record<string, Value> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, Value>;

export const userArb = fc
  .record({
    active: fc.boolean(),
    dept: maybe(fc.constantFrom(...DEPTS)),
    clearance: maybe(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('2', '10'))),
    projects: maybe(fc.subarray(TAGS)),
    roles: maybe(fc.subarray([...ROLES, 'guest'])),
  })
  .map(({ active, roles, ...attrs }) => ({ active, subject: { attributes: withoutAbsent(attrs), ...(roles ? { roles } : {}) } as Subject }));

export const docArb = fc
  .record({
    dept: maybe(fc.constantFrom(...DEPTS)),
    level: maybe(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('2', '10'))),
    kind: maybe(fc.constantFrom(...KINDS)),
    tags: maybe(fc.subarray(TAGS)),
  })
  .map((attrs): Subject => ({ attributes: withoutAbsent(attrs) }));

function renderOperand(o: Operand): string {
  if ('ref' in o) return o.ref;
  if (Array.isArray(o.lit)) return `[${o.lit.map((v) => `'${v}'`).join(', ')}]`;
  return typeof o.lit === 'string' ? `'${o.lit}'` : String(o.lit);
}

export function renderCond(c: Cond): string {
  if (c.t === 'cmp') return `${renderOperand(c.l)} ${c.op} ${renderOperand(c.r)}`;
  if (c.t === 'in') return `${renderOperand(c.l)} ${c.neg ? 'not in' : 'in'} ${renderOperand(c.r)}`;
  if (c.t === 'not') return `not (${renderCond(c.part)})`;
  return c.parts.map((p) => `(${renderCond(p)})`).join(` ${c.t} `);
}

export function renderPolicy(rules: Rule[]): string {
  const lines = ['version: 1', 'rules:'];
  for (const r of rules) {
    lines.push(`  - name: ${r.name}`);
    if (r.roles) lines.push(`    roles: [${r.roles.join(', ')}]`);
    if (r.allow) lines.push(`    allow: "${renderCond(r.allow)}"`);
  }
  return `${lines.join('\n')}\n`;
}

function value(o: Operand, user: Subject, doc: Subject): Value | undefined {
  if ('lit' in o) return o.lit;
  const [root, name] = o.ref.split('.') as [string, string];
  if (root === 'user' && name === 'roles') return user.roles;
  return (root === 'user' ? user : doc).attributes[name];
}

function truth(c: Cond, user: Subject, doc: Subject): T {
  if (c.t === 'not') {
    const x = truth(c.part, user, doc);
    return x === 'unknown' ? x : !x;
  }
  if (c.t === 'and' || c.t === 'or') {
    const xs = c.parts.map((p) => truth(p, user, doc));
    const decisive = c.t === 'and' ? false : true;
    if (xs.includes(decisive)) return decisive;
    return xs.includes('unknown') ? 'unknown' : !decisive;
  }
  const l = value(c.l, user, doc);
  const r = value(c.r, user, doc);
  if (l === undefined || r === undefined) return 'unknown';
  if (c.t === 'in') {
    if (!Array.isArray(r) || !(typeof l === 'string' || typeof l === 'number')) return 'unknown';
    return r.includes(String(l)) !== c.neg;
  }
  if (Array.isArray(l) || Array.isArray(r) || typeof l !== typeof r) return 'unknown';
  switch (c.op) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    default:
      if (typeof l === 'boolean') return 'unknown';
      // Documented: two texts that are both decimal numerals are not ordered.
      if (typeof l === 'string' && typeof r === 'string' && !Number.isNaN(Number(l)) && l.trim() !== '' && !Number.isNaN(Number(r)) && r.trim() !== '')
        return 'unknown';
      return c.op === '<' ? l < r : c.op === '<=' ? l <= r : c.op === '>' ? l > r : l >= r;
  }
}

/** The policy's direct answer: some rule whose roles (if any) the user holds and whose condition is true. */
export function oracleGrants(rules: Rule[], user: Subject, doc: Subject): boolean {
  return rules.some((r) => (!r.roles || (user.roles ?? []).some((x) => r.roles?.includes(x))) && (!r.allow || truth(r.allow, user, doc) === true));
}
