import { readFile } from 'node:fs/promises';
import { isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { ConditionSyntaxError, parseCondition } from './parse-condition';
import { PolicyError } from './policy-error';
import type { Policy, PolicyRule } from './policy-types';

const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** The shape of a policy file; conditions are parsed after it (parse-condition.ts). */
export const policyFileSchema = z.strictObject({
  version: z.literal(1, { error: 'version must be 1' }),
  rules: z
    .array(
      z
        .strictObject({
          name: z.string().regex(RULE_NAME, 'a rule name is 1-100 letters, digits, dots, dashes or underscores'),
          description: z.string().optional(),
          roles: z.array(z.string().min(1, 'a role name is not empty')).min(1, 'roles lists at least one role (leave it out for no role condition)').optional(),
          allow: z.string().min(1, 'allow is a condition; leave it out for none').optional(),
        })
        .refine((r) => r.roles !== undefined || r.allow !== undefined, { error: 'a rule needs roles, allow, or both (a rule granting everything is refused)' }),
    )
    .min(1, 'a policy has at least one rule'),
});

type Where = { line: number; column: number };

function positionOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): Where | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as (string | number)[], true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) {
      const p = lines.linePos(node.range[0]);
      return { line: p.line, column: p.col };
    }
  }
  return undefined;
}

const at = (w: Where | undefined): string => (w ? ` (line ${w.line}, column ${w.column})` : '');

/** The position of offset `offset` of a rule's condition, exact when the condition is on one line. */
function conditionPosition(doc: Document, lines: LineCounter, index: number, offset: number): Where | undefined {
  const node = doc.getIn(['rules', index, 'allow'], true);
  if (!isScalar(node) || !node.range) return undefined;
  const start = lines.linePos(node.range[0]);
  if (node.type === 'PLAIN') return { line: start.line, column: start.col + offset };
  if (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') return { line: start.line, column: start.col + 1 + offset };
  return { line: start.line, column: start.col };
}

/**
 * Parses and validates a policy (YAML text). Throws a PolicyError naming the rule and its position
 * for a syntax error, a schema violation, a duplicate rule name, or an unsupported condition.
 */
export function parsePolicy(text: string, file?: string): Policy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const where = file ? `${file}: ` : '';
  const yamlError = doc.errors[0];
  if (yamlError) {
    const p = lines.linePos(yamlError.pos[0]);
    throw new PolicyError(`${where}invalid YAML (line ${p.line}, column ${p.col}): ${yamlError.message.split('\n')[0]}`, { file, line: p.line, column: p.col });
  }
  const parsed = policyFileSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const p = positionOf(doc, lines, issue.path);
    const ruleIndex = issue.path[0] === 'rules' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
    const raw: unknown = ruleIndex === undefined ? undefined : doc.getIn(['rules', ruleIndex, 'name']);
    const rule = ruleIndex === undefined ? '' : typeof raw === 'string' ? `rule '${raw}': ` : `rule #${ruleIndex + 1}: `;
    const field = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw new PolicyError(`${where}${rule}${field}${issue.message}${at(p)}`, { file, rule: typeof raw === 'string' ? raw : undefined, ...p });
  }
  const seen = new Set<string>();
  const rules = parsed.data.rules.map((r, index): PolicyRule => {
    if (seen.has(r.name)) {
      const p = positionOf(doc, lines, ['rules', index, 'name']);
      throw new PolicyError(`${where}rule '${r.name}': the name is used by an earlier rule${at(p)}`, { file, rule: r.name, ...p });
    }
    seen.add(r.name);
    try {
      const allow = r.allow === undefined ? ({ kind: 'constant', value: true, at: 0 } as const) : parseCondition(r.allow);
      return { name: r.name, roles: r.roles ?? [], allow, ...(r.allow !== undefined ? { source: r.allow } : {}) };
    } catch (error) {
      if (!(error instanceof ConditionSyntaxError)) throw error;
      const p = conditionPosition(doc, lines, index, error.at);
      throw new PolicyError(`${where}rule '${r.name}'${at(p)}: ${error.message}`, { file, rule: r.name, ...p });
    }
  });
  return { version: 1, rules };
}

/** Reads and parses a policy file (see parsePolicy). */
export async function loadPolicy(file: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new PolicyError(`cannot read the policy file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file });
  }
  return parsePolicy(text, file);
}
