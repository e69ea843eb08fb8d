import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { sqlMappingSchema, type IncrementalMapping, type SqlMapping } from './sql-mapping-schema';

/** A mapping file that cannot be read, parsed or validated; the message names the file and every bad key. */
export class SqlMappingError extends Error {
  override readonly name = 'SqlMappingError';
}

/** The default page of a document: its title, then its body. Every value is escaped except the body (HTML). */
export const DEFAULT_DOCUMENT_TEMPLATE =
  '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{{title}}</title></head>\n<body>\n<article>\n<h1>{{title}}</h1>\n{{{body}}}\n</article>\n</body>\n</html>\n';

/** A validated mapping, with its template read and its incremental mode decided. */
export interface ResolvedSqlMapping {
  mapping: SqlMapping;
  /** The mustache template documents are rendered with. */
  template: string;
  incremental: IncrementalMapping;
  /**
   * Changes whenever the mapping or the template does: a checkpoint taken under another mapping
   * is refused, so the next run is full and re-renders every document.
   */
  fingerprint: string;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.map(String).join('.');
      return `${at || '(top level)'}: ${issue.message}`;
    })
    .join('; ');
}

/** Validates a mapping given as data (tests, or a caller that builds it); `baseDir` resolves a template file. */
export function resolveSqlMapping(input: unknown, options: { baseDir?: string; origin?: string } = {}): ResolvedSqlMapping {
  const origin = options.origin ?? 'SQL mapping';
  const parsed = sqlMappingSchema.safeParse(input);
  if (!parsed.success) throw new SqlMappingError(`Invalid ${origin}: ${describeIssues(parsed.error)}`);
  const mapping = parsed.data;
  const { documents } = mapping;
  let template = documents.html ?? DEFAULT_DOCUMENT_TEMPLATE;
  if (documents.template !== undefined) {
    const file = path.resolve(options.baseDir ?? process.cwd(), documents.template);
    try {
      template = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new SqlMappingError(
        `Invalid ${origin}: documents.template: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
  const incremental: IncrementalMapping = mapping.incremental ?? (documents.modified !== undefined ? { mode: 'modified' } : { mode: 'none' });
  const fingerprint = crypto.createHash('sha256').update(JSON.stringify({ mapping, template })).digest('hex').slice(0, 16);
  return { mapping, template, incremental, fingerprint };
}

/** Reads a mapping file: YAML, or JSON when it ends in `.json`. Throws SqlMappingError naming the file and what is wrong. */
export function loadSqlMapping(file: string): ResolvedSqlMapping {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new SqlMappingError(`Cannot read the SQL mapping file ${absolute}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = absolute.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SqlMappingError(`The SQL mapping file ${absolute} is not valid ${absolute.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  return resolveSqlMapping(data, { baseDir: path.dirname(absolute), origin: `SQL mapping ${absolute}` });
}

export type { SqlMapping };
