import Ajv from 'ajv';
import { SetMatchType, type Document, type OpenAPIBackend } from 'openapi-backend';
import { createApiBackend } from '../../src/http/create-api-backend';
import { loadContract, loadGatewayContract } from '../../src/http/load-contract';

export interface ObservedResponse {
  method: string;
  /** Path as sent (percent-encoded), without the query. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * Checks a response against the contract: the status must be one the operation documents, a JSON
 * body must match that status's schema, and declared headers must be present and valid. Responses
 * for routes outside the contract must still be the error envelope.
 */
export class ContractValidator {
  private readonly ready: Promise<OpenAPIBackend>;
  private readonly errorSchema: ReturnType<Ajv['compile']>;
  private readonly doc: Document;

  /**
   * The contract as openapi-backend loads it for the gateway (strict, every request and response
   * validator compiled up front), and the very same loaded instance as the gateways this test
   * process starts: compiling it takes about a second, which every test file paid twice.
   * openapi-backend's defaults (`validate`, `ignoreTrailingSlashes`) are what the gateway asks for.
   */
  constructor() {
    this.doc = loadContract();
    this.ready = createApiBackend(loadGatewayContract());
    const ajv = new Ajv({ allErrors: true });
    const schemas = (this.doc.components?.schemas ?? {}) as Record<string, object>;
    this.errorSchema = ajv.compile(schemas.Error as object);
  }

  async problems(r: ObservedResponse): Promise<string[]> {
    const api = await this.ready;
    // HEAD is answered wherever GET is (the contract says so), with GET's status and headers.
    const head = r.method.toUpperCase() === 'HEAD';
    const operation = api.router.matchOperation({ method: head ? 'get' : r.method.toLowerCase(), path: r.path, headers: {} });
    const isJson = String(r.headers['content-type'] ?? '').startsWith('application/json');
    if (!operation) {
      if (r.status < 400) return [`${r.method} ${r.path} answered ${r.status} but is not in the contract`];
      // A HEAD answer carries the headers of the envelope, never its body.
      if (head) return isJson ? [] : [`${r.method} ${r.path}: ${r.status} is not JSON`];
      return isJson && this.errorSchema(r.body) ? [] : [`${r.method} ${r.path}: ${r.status} is not the error envelope`];
    }
    const documented = Object.keys(operation.responses ?? {});
    if (!documented.includes(String(r.status))) {
      return [`${operation.operationId}: status ${r.status} is not documented (documented: ${documented.join(', ')})`];
    }
    const problems: string[] = [];
    if (isJson && !head) {
      const result = api.validateResponse(r.body, operation, r.status);
      for (const e of result.errors ?? []) problems.push(`${operation.operationId} ${r.status} body ${e.instancePath} ${e.message}`);
    }
    const headers = api.validateResponseHeaders(r.headers, operation, { statusCode: r.status, setMatchType: SetMatchType.Superset });
    for (const e of headers.errors ?? []) problems.push(`${operation.operationId} ${r.status} headers ${e.instancePath} ${e.message}`);
    return problems;
  }

  async operationIds(): Promise<string[]> {
    return (await this.ready).getOperations().map((o) => o.operationId as string);
  }
}
