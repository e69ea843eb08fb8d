import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { compilePolicy } from '../../src/policies/compile-policy';
import { policyGrants } from '../../src/policies/evaluate-policy';
import { loadPolicy, parsePolicy } from '../../src/policies/load-policy';
import { PolicyError } from '../../src/policies/policy-error';

const GOOD = `version: 1
rules:
  - name: same-department-cleared
    description: Staff read their department's documents up to their clearance.
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-read-handbooks
    roles: [editor, admin]
    allow: doc.kind in ['handbook', 'guide']
  - name: project-members
    allow: "doc.project in user.projects and not (doc.kind == 'secret')"
`;

function refusal(text: string): PolicyError {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('the policy was accepted');
}

const rule = (allow: string): string => `version: 1\nrules:\n  - name: r1\n    allow: ${allow}\n`;

describe('loading a policy file', () => {
  it('parses rules, roles and conditions and evaluates them', () => {
    const policy = parsePolicy(GOOD);
    expect(policy.rules.map((r) => r.name)).toEqual(['same-department-cleared', 'editors-read-handbooks', 'project-members']);
    const user = { attributes: { department: 'eng', clearance: 2, projects: ['apollo'] }, roles: ['viewer'] };
    expect(policyGrants(policy, user, { attributes: { department: 'eng', level: 2 } })).toBe(true);
    expect(policyGrants(policy, user, { attributes: { department: 'eng', level: 3 } })).toBe(false);
    expect(policyGrants(policy, user, { attributes: { department: 'ops', kind: 'handbook' } })).toBe(false);
    expect(policyGrants(policy, { ...user, roles: ['admin'] }, { attributes: { kind: 'handbook' } })).toBe(true);
    expect(policyGrants(policy, user, { attributes: { project: 'apollo', kind: 'memo' } })).toBe(true);
    expect(policyGrants(policy, user, { attributes: { project: 'apollo', kind: 'secret' } })).toBe(false);
  });

  it('never grants through negation when an attribute is absent (three-valued logic)', () => {
    const policy = parsePolicy(rule(`"not (doc.kind == 'secret')"`));
    expect(policyGrants(policy, {}, { attributes: { kind: 'memo' } })).toBe(true);
    expect(policyGrants(policy, {}, { attributes: {} })).toBe(false);
    const roles = parsePolicy(rule(`"'contractor' not in user.roles"`));
    expect(policyGrants(roles, { roles: ['staff'] }, {})).toBe(true);
    expect(policyGrants(roles, {}, {})).toBe(false);
    const mixed = parsePolicy(rule('user.clearance >= doc.level'));
    expect(policyGrants(mixed, { attributes: { clearance: '3' } }, { attributes: { level: 1 } })).toBe(false);
    expect(policyGrants(mixed, { attributes: { constructor: 3 } }, { attributes: {} })).toBe(false);
  });

  it.each([
    ['an unknown operator', rule('user.department = doc.department'), "rule 'r1' (line 4, column 28): '=' is not supported: write '=='"],
    ['&&', rule('"user.a == doc.a && user.b == doc.b"'), "rule 'r1' (line 4, column 29): '&&' is not supported: write 'and'"],
    [
      'an unknown root',
      rule('group.name == doc.owner'),
      "rule 'r1' (line 4, column 12): unknown reference 'group.name': only user.<name> and doc.<name> are supported",
    ],
    ['a function call', rule('"lower(user.a) == doc.a"'), "rule 'r1' (line 4, column 13): unknown name 'lower'"],
    ['ordering a list', rule('"user.roles >= 2"'), "rule 'r1' (line 4, column 13): user.roles is a list: test membership with 'in'"],
    ['ordering a boolean', rule('"doc.public > true"'), "rule 'r1' (line 4, column 26): '>' orders numbers or texts, not true"],
    ['two constants', rule('"1 == 1"'), "rule 'r1' (line 4, column 13): 1 == 1 compares two constants"],
    ['in on a scalar', rule(`"doc.kind in 'memo'"`), "rule 'r1' (line 4, column 25): the right side of 'in' is a list"],
    ['an unclosed parenthesis', rule('"(user.a == doc.a"'), "rule 'r1' (line 4, column 29): expected ')' but found the end of the condition"],
    ['a dangling condition', rule('"user.a == doc.a doc.b == 1"'), "rule 'r1' (line 4, column 29): unexpected 'doc.b': join conditions with 'and' or 'or'"],
  ])('refuses %s, naming the rule and the position', (_what, text, message) => {
    expect(refusal(text).message).toContain(`policy.yaml: ${message}`);
  });

  it('refuses schema violations, naming the rule and its line', () => {
    const unknownKey = refusal('version: 1\nrules:\n  - name: a\n    allow: user.x == doc.x\n  - name: b\n    deny: user.x == doc.x\n');
    expect(unknownKey.message).toMatch(/rule 'b': rules\.1: .*deny.*\(line 5, column 5\)/);
    expect(unknownKey.details).toMatchObject({ rule: 'b', line: 5 });
    expect(refusal('version: 1\nrules:\n  - name: a\n').message).toMatch(/rule 'a': rules\.0: a rule needs roles, allow, or both.*\(line 3, column 5\)/);
    expect(refusal('version: 2\nrules: []\n').message).toMatch(/version: version must be 1 \(line 1, column 10\)/);
    expect(refusal('version: 1\nrules:\n  - name: a\n    allow: user.x == doc.x\n  - name: a\n    roles: [x]\n').message).toMatch(
      /rule 'a': the name is used by an earlier rule \(line 5, column 11\)/,
    );
    expect(refusal('version: 1\nrules:\n  - name: [x\n').message).toMatch(/^policy\.yaml: invalid YAML \(line \d+, column \d+\)/);
    expect(refusal('version: 1\nrules:\n  - name: a\n    roles: []\n').message).toMatch(/roles lists at least one role/);
  });

  it('refuses a condition nested too deep with a PolicyError naming the rule, not a stack overflow', () => {
    for (const allow of [`${'('.repeat(5000)}true${')'.repeat(5000)}`, `${'not '.repeat(20000)}true`]) {
      expect(refusal(`version: 1\nrules:\n  - name: deep\n    allow: "${allow}"\n`).message).toMatch(/rule 'deep'.*nested more than 64 deep/);
    }
    expect(() => parsePolicy(`version: 1\nrules:\n  - name: ok\n    allow: "${'('.repeat(60)}true${')'.repeat(60)}"\n`)).not.toThrow();
  });

  it('reads a file and says which file it could not read', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'policy-'));
    const file = path.join(dir, 'access.yaml');
    await writeFile(file, GOOD);
    expect((await loadPolicy(file)).rules).toHaveLength(3);
    await expect(loadPolicy(path.join(dir, 'missing.yaml'))).rejects.toThrow(/cannot read the policy file .*missing\.yaml: ENOENT/);
  });
});

describe('attribute names that are also Object.prototype names', () => {
  it('compiles them like any other attribute', () => {
    const policy = parsePolicy(rule('user.__proto__ == doc.constructor'));
    const users = [
      { nativeId: 'a', active: true, attributes: JSON.parse('{"__proto__": "x"}') as Record<string, string> },
      { nativeId: 'b', active: true, attributes: JSON.parse('{"__proto__": "y"}') as Record<string, string> },
    ];
    const compiled = compilePolicy(policy, users, [{ nativeId: 'd', attributes: { constructor: 'x' } }]);
    const docGroup = compiled.groups.find((g) => g.nativeId.startsWith('policy-d-'));
    const reached = docGroup?.members.flatMap((m) => compiled.groups.find((g) => g.nativeId === m.nativeId)?.members.map((u) => u.nativeId) ?? []);
    expect(reached).toEqual(['a']);
    expect(users.map((u) => policyGrants(policy, u, { attributes: { constructor: 'x' } }))).toEqual([true, false]);
  });
});
