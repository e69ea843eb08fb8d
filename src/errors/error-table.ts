import { errorCodes } from './error-codes';

/** The error-code table of docs/endpoints.md, generated from the registry (a test keeps the README in step). */
export function errorTable(): string {
  const rows = Object.entries(errorCodes).map(([code, e]) => `| ${e.status} | \`${code}\` | ${e.description} |`);
  return ['| HTTP | `error.code` | Meaning |', '|---|---|---|', ...rows].join('\n');
}
