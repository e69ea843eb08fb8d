import path from 'node:path';
import express, { type Router } from 'express';

/** Where a package's files are (its package.json's folder), resolved as Node resolves it. */
const packageDir = (name: string): string => path.dirname(require.resolve(`${name}/package.json`));

/** The files the pages load, all served by the gateway itself (no CDN), from the installed packages. */
export const ASSETS = {
  htmx: '/assets/htmx.min.js',
  css: '/assets/pico.classless.min.css',
  console: '/assets/console.css',
} as const;

/** `/assets/*`: htmx and the classless Pico stylesheet from node_modules, and the console's own small stylesheet. */
export function consoleAssets(templatesDir: string): Router {
  const router = express.Router();
  const options = { immutable: false, maxAge: '1h', fallthrough: false, index: false } as const;
  router.get(ASSETS.htmx, (_req, res) => res.sendFile(path.join(packageDir('htmx.org'), 'dist', 'htmx.min.js'), options));
  router.get(ASSETS.css, (_req, res) => res.sendFile(path.join(packageDir('@picocss/pico'), 'css', 'pico.classless.min.css'), options));
  router.get(ASSETS.console, (_req, res) => res.sendFile(path.join(templatesDir, 'console.css'), options));
  return router;
}
