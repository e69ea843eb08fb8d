import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import helmet from 'helmet';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

interface HeaderEdit {
  set: Array<[string, string | string[]]>;
  remove: string[];
}

/**
 * What a helmet middleware does to a response, recorded once: with static options (no nonce
 * functions) helmet sets the same headers on every response, so replaying the recording is
 * exact. Anything else helmet might do (read the request, call another response method, finish
 * asynchronously) fails here, at start-up, instead of being silently skipped.
 */
function record(middleware: Middleware): HeaderEdit {
  const edit: HeaderEdit = { set: [], remove: [] };
  const res = {
    setHeader(name: string, value: string | string[]) {
      edit.set.push([name, value]);
      return res;
    },
    removeHeader(name: string) {
      edit.remove.push(name);
    },
  };
  let called = false;
  middleware({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    called = true;
  });
  if (!called) throw new Error('helmet did not finish synchronously; its headers cannot be precomputed');
  return edit;
}

function apply(res: Response, edit: HeaderEdit): void {
  for (const name of edit.remove) res.removeHeader(name);
  for (const [name, value] of edit.set) res.setHeader(name, value);
}

let recorded: { always: HeaderEdit; overHttps: HeaderEdit } | undefined;

/** helmet's edits, recorded on first use: the one source of the security headers, however a response is written. */
function helmetEdits(): { always: HeaderEdit; overHttps: HeaderEdit } {
  recorded ??= {
    always: record(helmet({ strictTransportSecurity: false }) as Middleware),
    overHttps: record(helmet.strictTransportSecurity({ maxAge: 31_536_000, includeSubDomains: true }) as Middleware),
  };
  return recorded;
}

/**
 * The headers `securityHeaders` sets, as name/value pairs: for answers written on the socket
 * before Express has a response (`answerClientErrors`), so they carry the same headers.
 */
export function securityHeaderFields(secure: boolean): ReadonlyArray<readonly [string, string]> {
  const { always, overHttps } = helmetEdits();
  return [...always.set, ...(secure ? overHttps.set : [])].map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value] as const);
}

/**
 * helmet's headers on every response, and HSTS only over HTTPS (native TLS, or a trusted proxy
 * that says so), where it means something. helmet computes them once at start-up; each request
 * then costs a dozen `setHeader` calls instead of a dozen chained middlewares.
 */
export function securityHeaders() {
  const { always, overHttps } = helmetEdits();
  return function setSecurityHeaders(req: Request, res: Response): void {
    apply(res, always);
    if (req.secure) apply(res, overHttps);
  };
}
