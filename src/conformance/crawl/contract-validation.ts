import type { IncomingHttpHeaders } from 'node:http';
import { SetMatchType, type OpenAPIBackend, type Operation } from 'openapi-backend';
import { initOpenApiBackend } from '../../lib/init-openapi-backend';
import { loadOpenApiDocument } from '../../lib/load-openapi-document';
import { contractPathFor, type Profile } from '../conformance-profile';
import type { ContractViolation } from './crawl-record';

/**
 * The platform's error codes and the status each one goes with (reference §1.0, [DOC-ERRORS]).
 * Kept here rather than imported from the gateway's registry: the harness judges a fork by the
 * platform's table, not by whatever the fork's own registry says.
 */
export const ERROR_CODE_STATUS: Readonly<Record<string, number>> = {
  INPUT_VALIDATION_FAILED: 400,
  AUTHENTICATION_FAILED: 401,
  NOT_FOUND: 404,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  EXTERNAL_REST_ERROR: 502,
};

/**
 * The codes our own contract (`content-gateway.yaml`, the strict profile) adds to the platform's
 * table, with their statuses: what the gateway answers for HTTP-level conditions the platform's
 * table has no code for.
 */
export const STRICT_ERROR_CODE_STATUS: Readonly<Record<string, number>> = {
  ...ERROR_CODE_STATUS,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  RANGE_NOT_SATISFIABLE: 416,
  REQUEST_HEADERS_TOO_LARGE: 431,
  CONTENT_UNAVAILABLE: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface ObservedExchange {
  url: string;
  method: string;
  /** Path below the gateway's base URL, as sent (percent-encoded), without the query. */
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, when the response was JSON and parsed. */
  json?: unknown;
  /** Why a body that should have been JSON was not. */
  jsonError?: string;
}

/** The error envelope `{"error": {"code", "message"}}`, or undefined when the body is not one. */
export function errorEnvelope(body: unknown): { code: string; message: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
}

function isJsonType(headers: IncomingHttpHeaders): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(String(headers['content-type'] ?? ''));
}

/**
 * Validates responses against the contract with openapi-backend (ajv + ajv-formats): the status
 * must be one the operation documents, a JSON body must match that status's schema, declared
 * headers must be present and valid; every 4xx/5xx must be the error envelope with the code the
 * platform's table gives its status; routes outside the contract may only answer errors.
 */
export class ContractValidation {
  private constructor(
    private readonly api: OpenAPIBackend,
    readonly profile: Profile,
  ) {}

  /** Validation for `profile`, against its contract (or another document, for a fork's own). */
  static async create(profile: Profile, contractPath: string = contractPathFor(profile)): Promise<ContractValidation> {
    const { document, checked } = loadOpenApiDocument(contractPath);
    return new ContractValidation(await initOpenApiBackend(document, {}, checked), profile);
  }

  check(r: ObservedExchange): ContractViolation[] {
    const out: ContractViolation[] = [];
    const base = { url: r.url, status: r.status };
    const json = isJsonType(r.headers);
    if (r.status >= 400 && r.status !== 416 && r.method !== 'HEAD') out.push(...this.envelopeViolations(r));

    const operation = this.api.router.matchOperation({ method: r.method.toLowerCase(), path: r.path, headers: {} });
    if (!operation) {
      if (r.status < 400)
        out.push({ check: 'contract.responses', ...base, message: `${r.method} ${r.path} answered ${r.status} but is not an operation of the contract.` });
      return out;
    }
    const operationId = String(operation.operationId);
    const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
    const documented = Object.keys(responses);
    if (!documented.includes(String(r.status))) {
      out.push({
        check: 'contract.responses',
        ...base,
        operation: operationId,
        field: 'status',
        message: `${operationId}: status ${r.status} is not documented (documented: ${documented.join(', ')}).`,
      });
      return out;
    }
    const declared = responses[String(r.status)]?.content ?? {};
    const wantsJson = Object.keys(declared).some((t) => t.includes('json'));
    if (wantsJson && !json) {
      out.push({
        check: 'contract.responses',
        ...base,
        operation: operationId,
        field: 'Content-Type',
        message: `${operationId} ${r.status}: Content-Type should be application/json, was '${String(r.headers['content-type'] ?? 'missing')}'.`,
      });
    } else if (wantsJson && r.jsonError !== undefined) {
      out.push({
        check: 'contract.responses',
        ...base,
        operation: operationId,
        field: 'body',
        message: `${operationId} ${r.status}: the body is not JSON (${r.jsonError}).`,
      });
    } else if (json && r.jsonError === undefined && r.json !== undefined) {
      const result = this.api.validateResponse(r.json, operation, r.status);
      for (const e of result.errors ?? []) {
        out.push({
          check: 'contract.responses',
          ...base,
          operation: operationId,
          field: `body${e.instancePath}`,
          message: `${operationId} ${r.status}: body${e.instancePath} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}.`,
        });
      }
    }
    out.push(...this.headerViolations(r, operation, operationId));
    return out;
  }

  /**
   * The error envelope, and its code against the platform's table. Under `strict` a code outside
   * our table, or with another status, fails; under `platform` it is a warning (the spec leaves the
   * code free; the error page's table is advice), and extra fields in `error` are fine.
   */
  private envelopeViolations(r: ObservedExchange): ContractViolation[] {
    const base = { check: 'contract.error-envelope' as const, url: r.url, status: r.status };
    const json = isJsonType(r.headers);
    const envelope = json && r.jsonError === undefined ? errorEnvelope(r.json) : undefined;
    if (!envelope) {
      return [
        {
          ...base,
          field: 'body',
          message: `A ${r.status} answer is not the error envelope {"error": {"code", "message"}}${r.jsonError ? ` (${r.jsonError})` : json ? '' : ` (Content-Type ${String(r.headers['content-type'] ?? 'missing')})`}.`,
        },
      ];
    }
    const tolerated = this.profile === 'platform' ? { severity: 'warn' as const } : {};
    const table = this.profile === 'strict' ? STRICT_ERROR_CODE_STATUS : ERROR_CODE_STATUS;
    const expected = table[envelope.code];
    if (expected === undefined) {
      // The platform's table has no code for these statuses; any code is the gateway's own.
      if (this.profile === 'platform' && ![400, 401, 404, 429, 500, 502].includes(r.status)) return [];
      return [
        {
          ...base,
          ...tolerated,
          field: 'error.code',
          message: `Error code '${envelope.code}' is not one of the ${this.profile === 'strict' ? "contract's" : "platform's"} codes (${Object.keys(table).join(', ')}).`,
        },
      ];
    }
    if (expected !== r.status && !(r.status === 500 && envelope.code === 'EXTERNAL_REST_ERROR')) {
      return [
        { ...base, ...tolerated, field: 'error.code', message: `Error code '${envelope.code}' goes with HTTP ${expected}, but the status was ${r.status}.` },
      ];
    }
    return [];
  }

  /**
   * Declared headers must have valid values when present, and be present only when the contract
   * marks them `required: true` (openapi-backend's superset match would require every declared
   * header, e.g. Retry-After on every 429).
   */
  private headerViolations(r: ObservedExchange, operation: Operation, operationId: string): ContractViolation[] {
    const base = { check: 'contract.responses' as const, url: r.url, status: r.status, operation: operationId };
    const out: ContractViolation[] = [];
    const declared = ((operation.responses ?? {}) as Record<string, { headers?: Record<string, { required?: boolean }> }>)[String(r.status)]?.headers ?? {};
    for (const [name, header] of Object.entries(declared)) {
      if (header.required && r.headers[name.toLowerCase()] === undefined) {
        out.push({
          ...base,
          field: `headers.${name.toLowerCase()}`,
          message: `${operationId} ${r.status}: the ${name} header is missing (${this.profile === 'strict' ? 'our contract requires it' : 'required'}).`,
        });
      }
    }
    const result = this.api.validateResponseHeaders(r.headers, operation, { statusCode: r.status, setMatchType: SetMatchType.Any });
    for (const e of result.errors ?? []) {
      out.push({
        ...base,
        field: `headers${e.instancePath}`,
        message: `${operationId} ${r.status}: headers${e.instancePath} ${e.message ?? 'are invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}.`,
      });
    }
    return out;
  }
}
