import crypto from 'node:crypto';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import { doubleCsrf } from 'csrf-csrf';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import helmet from 'helmet';
import { GatewayError } from '../errors/gateway-error';
import { projectRoot } from '../lib/project-root';
import { requireAdmin, type AdminTokens } from './admin-auth';
import { ASSETS, consoleAssets } from './console-assets';
import type { ConsoleAction, ConsoleContext, ConsolePage } from './console-page';
import { ConsoleViews } from './console-views';
import { formatAge } from './format-age';

/** Where the console is mounted. */
export const CONSOLE_PATH = '/console';

export interface ConsoleOptions {
  ctx: ConsoleContext;
  pages: readonly ConsolePage[];
  /** The admin key (`CONSOLE_ADMIN_KEY`), when there is one. */
  adminKey?: string;
  /** Verifies an admin client's access token (`CONSOLE_ADMIN_CLIENTS`), when there are such clients. */
  adminTokens?: AdminTokens;
  /** The platform's crawl keys: refused here even if one equalled the admin key. */
  crawlKeys: readonly string[];
  /** Over HTTPS (TLS or `PUBLIC_BASE_URL` https): the CSRF cookie is `__Host-` and `Secure`. */
  secure: boolean;
}

/** No inline script or style, nothing from elsewhere, never framed. */
function strictHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'same-origin' },
  }) as RequestHandler;
}

/** Double-submit CSRF tokens (csrf-csrf), bound to the admin credential; scripts sending Bearer are not a browser's ambient credential, so they skip it. */
function csrfOf(options: ConsoleOptions) {
  // Without an admin key no browser signs in (tokens are Bearer, which skips CSRF): any secret serves.
  const key = options.adminKey ?? crypto.randomBytes(32).toString('hex');
  const secret = crypto.createHmac('sha256', key).update('content-gateway console csrf').digest('hex');
  return doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (req) => String((req.res?.locals.consoleCredential as { id: string } | undefined)?.id ?? ''),
    cookieName: options.secure ? '__Host-console-csrf' : 'console-csrf',
    cookieOptions: { sameSite: 'strict', path: '/', secure: options.secure, httpOnly: true },
    getCsrfTokenFromRequest: (req) => {
      const header = req.headers['x-csrf-token'];
      const field = (req.body as Record<string, unknown> | undefined)?._csrf;
      return typeof header === 'string' ? header : typeof field === 'string' ? field : undefined;
    },
    skipCsrfProtection: (req) => (req.res?.locals.consoleCredential as { scheme: string } | undefined)?.scheme === 'bearer',
  });
}

/** A request's query or body as strings only (repeated or nested values are refused). */
function stringFields(source: unknown, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((source ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new GatewayError('INPUT_VALIDATION_FAILED', `The ${what} field ${key} must be given once, as text.`);
    out[key] = value;
  }
  return out;
}

const wrap =
  (handler: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next: NextFunction) => {
    handler(req, res).catch(next);
  };

function pageRoutes(router: Router, page: ConsolePage, options: ConsoleOptions, views: ConsoleViews, token: (req: Request, res: Response) => string): void {
  const nav = options.pages.map((p) => ({ path: `${CONSOLE_PATH}/${p.path}`, title: p.title, current: p === page }));
  router.get(
    `/api/${page.path}`,
    wrap(async (req, res) => {
      res.json(await page.data(options.ctx, stringFields(req.query, 'query')));
    }),
  );
  router.get(
    `/${page.path}`,
    wrap(async (req, res) => {
      const query = stringFields(req.query, 'query');
      const data = await page.data(options.ctx, query);
      const csrfToken = token(req, res);
      const html = await views.render(`pages/${page.template}`, { data, query, page, nav, csrfToken, assets: ASSETS, base: CONSOLE_PATH, age: formatAge });
      res.type('html').send(html);
    }),
  );
  for (const action of page.actions ?? []) router.post(`/api/${page.path}/${action.name}`, wrap(actionHandler(page, action, options, views)));
}

/** JSON for scripts; a status fragment for htmx; a redirect back to the page for a plain form. */
function actionHandler(page: ConsolePage, action: ConsoleAction, options: ConsoleOptions, views: ConsoleViews) {
  return async (req: Request, res: Response): Promise<void> => {
    const { _csrf: _ignored, ...fields } = stringFields(req.body, 'form');
    const result = await action.run(options.ctx, fields);
    if (req.headers['hx-request'] === 'true') res.type('html').send(await views.render('action-result', result));
    else if (req.is('application/x-www-form-urlencoded')) res.redirect(303, `${CONSOLE_PATH}/${page.path}?done=${encodeURIComponent(result.message)}`);
    else res.json(result);
  };
}

/**
 * The console: its assets, then (for the admin key's holder only) each page at `/<path>`, its
 * JSON at `/api/<path>` and its actions at `POST /api/<path>/<action>`, behind a strict CSP, with
 * CSRF tokens on every action. Mounted at `CONSOLE_PATH` by the app; built only when the console
 * is on (`serve` imports this module lazily).
 */
export function consoleRouter(options: ConsoleOptions): Router {
  const templatesDir = path.join(projectRoot(__dirname), 'templates', 'console');
  const views = new ConsoleViews(templatesDir);
  const { generateCsrfToken, doubleCsrfProtection } = csrfOf(options);
  const router = express.Router();
  router.use(strictHeaders());
  router.use(consoleAssets(templatesDir));
  router.use(requireAdmin(options.adminKey, options.crawlKeys, options.adminTokens));
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' }));
  router.use(doubleCsrfProtection);
  router.get('/', (_req, res) => res.redirect(303, `${CONSOLE_PATH}/${options.pages[0]?.path ?? 'api'}`));
  router.get('/api', (_req, res) => {
    res.json({
      pages: options.pages.map((p) => ({ path: p.path, title: p.title, api: `${CONSOLE_PATH}/api/${p.path}`, actions: (p.actions ?? []).map((a) => a.name) })),
    });
  });
  for (const page of options.pages) pageRoutes(router, page, options, views, (req, res) => generateCsrfToken(req, res));
  router.use((req, _res, next) => next(new GatewayError('NOT_FOUND', `No console page or endpoint at ${req.method} ${CONSOLE_PATH}${req.path}.`)));
  return router;
}
