import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The report page's style sheet and scripts, real files in `src/conformance/report/assets/` (linted
 * and type-checked there). Found from this module's own location: the source runs as
 * <pkg>/src/conformance/report/*.ts (tsx, the test runner), the build as <pkg>/dist/src/conformance/report/*.js
 * and reads them from <pkg>/src/ as well (the image copies that folder, as it does the demo corpus),
 * so the bytes hashed into the page's Content-Security-Policy are the files' bytes either way.
 */
export const REPORT_ASSETS_DIR: string = path.join(
  path.resolve(__dirname, ...(path.extname(__filename) === '.js' ? ['..', '..', '..', '..'] : ['..', '..', '..'])),
  'src',
  'conformance',
  'report',
  'assets',
);

/** One asset's text; an asset that could close its inline element is refused. */
export function readReportAsset(name: string): string {
  const text = fs.readFileSync(path.join(REPORT_ASSETS_DIR, name), 'utf8');
  if (/<\/(script|style)/i.test(text)) throw new Error(`report asset ${name} must not contain </script or </style`);
  return text;
}

export interface ReportPageAssets {
  css: string;
  /** The page's one executable inline script: the access computation, then the page's own. */
  script: string;
  /** The page's Content-Security-Policy: nothing loaded, only this style sheet and script run. */
  csp: string;
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The assets as inlined into the page, with the policy allowing exactly them. */
export function reportPageAssets(): ReportPageAssets {
  const css = readReportAsset('report-page.css');
  const script = `${readReportAsset('access-explorer.js')}\n${readReportAsset('report-page.js')}`;
  return { css, script, csp: `default-src 'none'; style-src ${sha256(css)}; script-src ${sha256(script)}` };
}
