import fc from 'fast-check';
import type { OpenAPIBackend } from 'openapi-backend';
import { ContractRoutes, requestPath, type RouteMatch } from '../../src/http/contract-routes';
import { createApiBackend } from '../../src/http/create-api-backend';
import { loadGatewayContract } from '../../src/http/load-contract';

/** What openapi-backend's own router answers, in `RouteMatch`'s terms: the oracle. */
function libraryAnswer(api: OpenAPIBackend, method: string, path: string): RouteMatch | 'throws' {
  try {
    const operation = api.router.matchOperation({ method, path, headers: {} }, true);
    return { operation, params: api.router.parseRequest({ method, path, headers: {} }, operation).params as Record<string, string> };
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('404')) return 'not-found';
    if (message.startsWith('405')) return 'method-not-allowed';
    return 'throws';
  }
}

function tableAnswer(routes: ContractRoutes, method: string, path: string): RouteMatch | 'throws' {
  try {
    return routes.match(method.trim().toLowerCase(), requestPath(path));
  } catch {
    return 'throws';
  }
}

const summary = (answer: RouteMatch | 'throws') => (typeof answer === 'string' ? answer : { id: answer.operation.operationId, params: answer.params });

describe('the contract route table', () => {
  let api: OpenAPIBackend;
  let routes: ContractRoutes;
  beforeAll(async () => {
    api = await createApiBackend(loadGatewayContract());
    routes = new ContractRoutes(api.router.getOperations());
  });

  it('routes every operation of the contract, with its path parameters decoded', () => {
    const operations = api.router.getOperations();
    expect(operations.length).toBeGreaterThanOrEqual(10);
    for (const op of operations) {
      const path = op.path.replace(/\{[^}]+\}/g, 'a%2Fb%20c');
      const match = routes.match(op.method, path);
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
      expect(summary(match)).toEqual({ id: op.operationId, params: Object.fromEntries(names.map((n) => [n, 'a/b c'])) });
      // A trailing slash is ignored, as openapi-backend ignores it.
      expect(summary(routes.match(op.method, `${path}/`))).toEqual(summary(match));
    }
  });

  it('answers 404 for an unknown path and 405 for a known path with another method', () => {
    expect(routes.match('get', '/v1/nope')).toBe('not-found');
    expect(routes.match('get', '/')).toBe('not-found');
    expect(routes.match('post', '/v1/nope')).toBe('not-found');
    expect(routes.match('post', '/v1/files')).toBe('method-not-allowed');
    expect(routes.match('delete', '/v1/files/x/download')).toBe('method-not-allowed');
    expect(routes.match('get', '/v1/files//download')).toBe('not-found');
    // The literal path wins over the template it also matches.
    expect(summary(routes.match('get', '/v1/files/permissions/metadata'))).toEqual({ id: 'getPermissionsMetadata', params: {} });
    // Blanks before the query string go, as the router trims the path again once the query is cut.
    expect(summary(routes.match('get', requestPath('/v1/files/ ?$top=1')))).toEqual({ id: 'listFiles', params: {} });
  });

  it("answers what openapi-backend's router answers for any method and path", () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        'files',
        'groups',
        'users',
        'permissions',
        'metadata',
        'download',
        'members',
        'healthz',
        'readyz',
        '',
        '.',
        '..',
        '%41',
        '%2F',
        '%E0%A4%A',
        '{id}',
        'a.b',
        '*',
      ),
      fc.string({ maxLength: 6 }).filter((s) => !s.includes('/') && !s.includes('?')),
    );
    const path = fc
      .tuple(fc.constantFrom('', '/', '/v1/', '/v1/files/'), fc.array(segment, { maxLength: 5 }), fc.constantFrom('', '/', '//', '?$top=1'))
      .map(([head, segments, tail]) => `${head}${segments.join('/')}${tail}`);
    const method = fc.constantFrom('get', 'GET', 'post', 'put', 'delete', 'head', 'options', 'patch', 'trace', 'propfind');
    fc.assert(
      fc.property(method, path, (m, p) => {
        expect(summary(tableAnswer(routes, m, p))).toEqual(summary(libraryAnswer(api, m, p)));
      }),
      { numRuns: 3000 },
    );
  });
});
