/**
 * The one shortcut around a library's documented use kept (issue 28): routing. openapi-backend's
 * `handleRequest` finds the operation with `router.matchOperation`, which rebuilds the operation
 * list with lodash and a RegExp per path template on every request. Measured worth, the two trees
 * alternately on one machine (kit/bench/README.md, "the one shortcut kept"): server CPU a request
 * −34 % for `GET /v1/files/{id}`, −22 to −25 % for a list page; sample-comparison +48 to +67 %.
 */
import type { Operation } from 'openapi-backend';

/** What a request's method and path find in the contract. */
export type RouteMatch = { operation: Operation; params: Record<string, string> } | 'not-found' | 'method-not-allowed';

interface TemplateRoute {
  pattern: RegExp;
  names: string[];
  byMethod: ReadonlyMap<string, Operation>;
}

const PARAM = /\{([^}]+)\}/g;

/**
 * openapi-backend's router pattern for a path template (`pathTemplateToPattern`: literal parts
 * escaped, each `{name}` one or more characters other than `/`), here with a capture group per
 * parameter so matching and extracting are one step.
 */
function templatePattern(template: string): RegExp {
  const literals = template.replace(PARAM, '\0').split('\0');
  return new RegExp(`^${literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([^/]+)')}$`);
}

/**
 * The request's path as the router normalises it: trimmed, one leading slash, no query string,
 * and trimmed again (`normalizePath`), so `/v1/files/ ?$top=1` is `/v1/files/`.
 */
export function requestPath(path: string): string {
  let p = path.trim();
  if (!p.startsWith('/')) p = `/${p}`;
  return (p.split('?')[0] ?? p).trim();
}

/**
 * The contract's operations as a static route table, built once from openapi-backend's operation
 * list (`router.getOperations()` after `init()`), answering exactly what its `matchOperation`
 * answers without rebuilding anything per request: a path with no trailing slash (they are
 * ignored) is looked up among the literal paths by method; failing that, the templates in order
 * of specificity (length of their literal text, longest first, document order between equals)
 * are tried, the first one matching both the path and the method wins, and a path that some
 * template matches without the method is `method-not-allowed`. Parameter values are
 * percent-decoded (`decodeURIComponent`), as bath-es5, the router's parameter parser, does.
 */
export class ContractRoutes {
  private readonly literal = new Map<string, Map<string, Operation>>();
  private readonly templates: TemplateRoute[];

  constructor(operations: readonly Operation[]) {
    const byPath = new Map<string, Map<string, Operation>>();
    for (const op of operations) {
      const methods = byPath.get(op.path) ?? new Map<string, Operation>();
      methods.set(op.method, methods.get(op.method) ?? op);
      byPath.set(op.path, methods);
      if (!op.path.includes('{')) this.literal.set(op.path, methods);
    }
    const specificity = (path: string): number => path.replace(/\{.*?\}/g, '').length;
    this.templates = [...byPath]
      .map(([path, byMethod]) => ({ path, pattern: templatePattern(path), names: [...path.matchAll(PARAM)].map((m) => m[1] ?? ''), byMethod }))
      .sort((a, b) => specificity(b.path) - specificity(a.path));
  }

  /** The operation for `method` (lower case) on `path` (as `requestPath` gives it), with its path parameters. */
  match(method: string, path: string): RouteMatch {
    let route = path;
    while (route.length > 1 && route.endsWith('/')) route = route.slice(0, -1);
    const exact = this.literal.get(route)?.get(method);
    if (exact) return { operation: exact, params: {} };
    let pathMatched = false;
    for (const template of this.templates) {
      const m = template.pattern.exec(route);
      if (!m) continue;
      pathMatched = true;
      const operation = template.byMethod.get(method);
      if (!operation) continue;
      const params: Record<string, string> = {};
      template.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { operation, params };
    }
    return pathMatched ? 'method-not-allowed' : 'not-found';
  }
}
