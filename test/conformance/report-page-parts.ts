import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The report page's asset files as checked in (read here directly, not through the code under test). */
export const readAsset = (name: string): string => fs.readFileSync(path.join(__dirname, '../../src/conformance/report/assets', name), 'utf8');

/** A CSP hash source for some inline text. */
export const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** A report page's Content-Security-Policy, its inline style sheet and its one executable script, as written in the file. */
export function inlineParts(html: string): { policy: string | undefined; style: string; script: string } {
  const between = (open: string, close: string) => html.slice(html.lastIndexOf(open) + open.length, html.lastIndexOf(close));
  const policy = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
  return { policy, style: between('<style>', '</style>'), script: between('<script>', '</script>') };
}
