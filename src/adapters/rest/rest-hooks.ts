import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** What one page gave, for a paginator hook to decide the next one. */
export interface RestHookPage {
  status: number;
  headers: Headers;
  /** The answer's JSON body. */
  body: unknown;
  /** The page's records, as `record_selector` selected them. */
  records: readonly unknown[];
  /** 1 for the first page. */
  pageNumber: number;
  /** Where this page was: the query parameters it was asked with (besides the listing's own), or the URL a previous page gave. */
  request: { query?: Readonly<Record<string, unknown>>; url?: string };
}

/** The next page: query parameters added to the listing's own (its path), or a URL (on `url_base`'s origin). */
export interface RestHookNextPage {
  query?: Record<string, string | number | boolean>;
  url?: string;
}

/**
 * A paginator the manifest's types cannot express, as a TypeScript function the manifest names
 * (`paginator: { type: hook, module: ./hooks/pager.ts, export: page }`): given the page just read,
 * the next page, or `undefined` at the listing's natural end. The adapter's guards still hold: a
 * page already asked for, a page repeating the previous one and `max_pages` fail the listing, and
 * so does a hook that throws or answers something else.
 */
export type RestPaginatorHook = (page: RestHookPage) => RestHookNextPage | undefined | Promise<RestHookNextPage | undefined>;

/** What an authenticator hook may use: the environment by name (secrets stay out of the manifest) and a fetch confined to `url_base`'s origin. */
export interface RestHookContext {
  /** The manifest's `url_base`, resolved. */
  baseUrl: string;
  /** An environment variable's value; throws naming the variable when it is not set. */
  env(name: string): string;
  /** `fetch` for a path relative to `url_base` (or a URL on its origin); any other origin is refused. Counted, paced and budgeted as every request. */
  fetch(pathOrUrl: string, init?: RequestInit): Promise<Response>;
  /** Aborts with the run. */
  signal: AbortSignal;
}

/** Credentials for each request to `url_base` (never sent elsewhere), and what to do after a 401. */
export interface RestAuthenticatorHook {
  headers?(): Record<string, string> | Promise<Record<string, string>>;
  query?(): Record<string, string> | Promise<Record<string, string>>;
  /** After a 401: forget cached credentials; true when the request is worth repeating once with fresh ones. */
  invalidate?(): boolean;
}

/**
 * An authenticator the manifest's types cannot express (a challenge-response login, a signed
 * token), as a TypeScript function the manifest names (`authenticator: { type: hook, module,
 * export }`): called once per run with the context, it gives the run's credentials.
 */
export type RestAuthenticatorHookFactory = (ctx: RestHookContext) => RestAuthenticatorHook;

/** The manifest's hook fields: `{ type: hook, module, export }`. */
export interface HookSpec {
  type: 'hook';
  module: string;
  export: string;
}

const HOOK_EXTENSIONS = new Set(['.ts', '.js', '.cjs']);

/** The functions loaded for each hook spec of a manifest (kept beside it: the spec stays plain data). */
const loadedHooks = new WeakMap<object, (...args: never[]) => unknown>();

/** The function a hook spec names; loaded when the manifest was. */
export function hookFunction<T>(spec: object): T {
  const fn = loadedHooks.get(spec);
  if (!fn) throw new Error('A hook was used before its manifest loaded it');
  return fn as T;
}

/** A problem with one hook, by the field it concerns. */
export interface HookProblem {
  field: 'module' | 'export';
  message: string;
}

/**
 * Loads the function `spec` names, safely: the module must be a `.ts`, `.js` or `.cjs` file inside
 * the manifest's folder (no absolute path, nothing reached through `..` or a link leading out), and
 * the export a function. A hook is code: it runs in the gateway's process like an adapter, and is
 * reviewed like one; the manifest only names it.
 */
export function loadHook(spec: HookSpec, manifestDir: string): HookProblem | undefined {
  const root = fs.existsSync(manifestDir) ? fs.realpathSync(manifestDir) : manifestDir;
  const inside = (file: string): boolean => {
    const rel = path.relative(root, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  if (path.isAbsolute(spec.module) || !inside(path.resolve(root, spec.module)))
    return { field: 'module', message: `must be a path inside the manifest's folder (${root}), such as ./hooks/pager.ts` };
  const file = path.resolve(root, spec.module);
  if (!HOOK_EXTENSIONS.has(path.extname(file))) return { field: 'module', message: 'must be a .ts, .js or .cjs file' };
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return { field: 'module', message: `no such file: ${file}` };
  if (!inside(fs.realpathSync(file)))
    return { field: 'module', message: `must be a path inside the manifest's folder (${root}); ${spec.module} links out of it` };
  let exports: Record<string, unknown>;
  try {
    exports = requireHookModule(file);
  } catch (error) {
    return { field: 'module', message: `${spec.module} could not be loaded: ${(error as Error).message}` };
  }
  if (!Object.hasOwn(exports, spec.export)) return { field: 'export', message: `${spec.module} has no export ${JSON.stringify(spec.export)}` };
  const fn = exports[spec.export];
  if (typeof fn !== 'function') return { field: 'export', message: `${JSON.stringify(spec.export)} of ${spec.module} is not a function` };
  loadedHooks.set(spec, fn as (...args: never[]) => unknown);
  return undefined;
}

/**
 * A hook module's exports. JavaScript, and TypeScript where a loader is registered (tsx, the
 * tests), load as any module; TypeScript under plain Node (the built gateway) is transpiled with
 * the project's TypeScript compiler when it is installed, else refused with what to do instead.
 */
function requireHookModule(file: string): Record<string, unknown> {
  // Node's own loader (not a bundler's or a test runner's): what the gateway runs with.
  const load = createRequire(__filename);
  if (path.extname(file) !== '.ts' || '.ts' in load.extensions) return load(file) as Record<string, unknown>;
  let ts: typeof import('typescript');
  try {
    ts = load('typescript') as typeof import('typescript');
  } catch {
    throw new Error('TypeScript is not installed here: compile the hook to JavaScript (tsc) and name the .js file');
  }
  const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: file,
  });
  // Run as Node runs a CommonJS file, through public APIs only: the module wrapper's parameters,
  // with a `require` that resolves from the hook's own folder.
  const hookModule = { exports: {} as Record<string, unknown> };
  const run = vm.compileFunction(outputText, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
  run(hookModule.exports, createRequire(file), hookModule, file, path.dirname(file));
  return hookModule.exports;
}
