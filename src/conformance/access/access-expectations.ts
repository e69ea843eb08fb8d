import fs from 'node:fs';
import YAML from 'yaml';
import { z } from 'zod';

/** Emails that must, and must not, be able to see one file. */
export interface AccessExpectation {
  file: string;
  canSee: string[];
  cannotSee: string[];
}

const emails = z.array(z.string().min(1)).default([]);
const entry = z
  .object({ file: z.string().min(1), can_see: emails, cannot_see: emails })
  .strict()
  .refine((e) => e.can_see.length + e.cannot_see.length > 0, { message: 'name at least one email in can_see or cannot_see' });
const schema = z.union([z.array(entry), z.object({ expectations: z.array(entry) }).strict()]);

/**
 * Parses an expectations file (YAML, or JSON, which is YAML too):
 *
 * ```yaml
 * expectations:
 *   - file: "hr:salary-bands-2025"
 *     can_see: [hr-lead@example.com]
 *     cannot_see: [intern@example.com]
 * ```
 *
 * A bare list of the same entries is accepted too.
 */
export function parseExpectations(text: string, source = 'expectations'): AccessExpectation[] {
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (error) {
    throw new Error(`${source}: not YAML or JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
    throw new Error(`${source}: expected a list of {file, can_see, cannot_see} (or {expectations: [...]}) — ${detail}`);
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.expectations;
  return list.map((e) => ({ file: e.file, canSee: e.can_see, cannotSee: e.cannot_see }));
}

export function loadExpectations(file: string): AccessExpectation[] {
  return parseExpectations(fs.readFileSync(file, 'utf8'), file);
}
