import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Mustache from 'mustache';
import { LineCounter, parseDocument, type Document } from 'yaml';
import schema from './manifest.schema.json';
import { DEFAULT_EXPRESSION_LIMITS, Expressions, RestExpressionError } from './rest-expressions';
import { loadHook, type HookSpec } from './rest-hooks';
import type { RestManifest } from './rest-manifest';

/** A manifest that cannot be read or is not valid; the message names the file, and each problem its path and line. */
export class RestManifestError extends Error {
  override readonly name = 'RestManifestError';
}

/** The published JSON Schema of manifests (version 1). */
export const REST_MANIFEST_SCHEMA: object = schema;

let compiled: ValidateFunction<RestManifest> | undefined;

/** The schema's validator, compiled when a manifest is first read (not when a command that reads none loads this module). */
function validator(): ValidateFunction<RestManifest> {
  compiled ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile<RestManifest>(schema);
  return compiled;
}

/** A validated manifest, its expressions compiled. */
export interface LoadedManifest {
  manifest: RestManifest;
  expressions: Expressions;
  /** Where it came from, for messages: the file, or what the caller named. */
  origin: string;
}

type Place = (at: readonly (string | number)[]) => string;

/** Reads and validates a manifest file (YAML, or JSON ending in `.json`). Throws RestManifestError. */
export function loadRestManifest(file: string): LoadedManifest {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new RestManifestError(`Cannot read the REST manifest ${absolute}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseRestManifest(text, absolute);
}

/** Validates a manifest given as text (YAML is a superset of JSON). `origin` names it in messages. */
export function parseRestManifest(text: string, origin: string): LoadedManifest {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new RestManifestError(`The REST manifest ${origin} is not valid YAML: ${doc.errors.map((e) => e.message.split('\n')[0]).join('; ')}`);
  }
  const data: unknown = doc.toJS();
  const place = placeIn(doc, lineCounter);
  const validate = validator();
  if (!validate(data)) throw invalid(origin, describeSchemaErrors(validate.errors ?? [], place));
  const limits = data.expression_limits;
  const expressions = new Expressions({
    timeoutMs: limits?.timeout_ms ?? DEFAULT_EXPRESSION_LIMITS.timeoutMs,
    maxDepth: limits?.max_depth ?? DEFAULT_EXPRESSION_LIMITS.maxDepth,
  });
  const problems = [
    ...refusedIgnores(data, place),
    ...expressionProblems(data, expressions, place),
    ...otherProblems(data, place),
    ...hookProblems(data, path.dirname(path.resolve(origin)), place),
  ];
  if (problems.length > 0) throw invalid(origin, problems);
  return { manifest: data, expressions, origin };
}

function invalid(origin: string, problems: string[]): RestManifestError {
  return new RestManifestError(`Invalid REST manifest ${origin}:\n  ${[...new Set(problems)].join('\n  ')}`);
}

/** `streams.users.map.id (line 12)`: the path, and the line of the nearest node the file has. */
function placeIn(doc: Document, lines: LineCounter): Place {
  return (at) => {
    const shown =
      at.length === 0
        ? '(top level)'
        : at
            .map((p) => (typeof p === 'number' ? `[${p}]` : p))
            .join('.')
            .replace(/\.\[/g, '[');
    for (let n = at.length; n >= 0; n -= 1) {
      const node = n === 0 ? doc.contents : doc.getIn(at.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return `${shown} (line ${lines.linePos(range[0]).line})`;
    }
    return shown;
  };
}

const pathOf = (instancePath: string): string[] =>
  instancePath === ''
    ? []
    : instancePath
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** One line per problem; a `oneOf`'s branches are summed up as what the value must be. */
function describeSchemaErrors(errors: readonly ErrorObject[], place: Place): string[] {
  const oneOfAt = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  const lines: string[] = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    if (oneOfAt.has(e.instancePath) && e.keyword !== 'oneOf') continue;
    const at = pathOf(e.instancePath);
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      lines.push(`${place([...at, extra])}: unknown field "${extra}"`);
    } else if (e.keyword === 'required') {
      lines.push(`${place(at)}: missing field "${(e.params as { missingProperty: string }).missingProperty}"`);
    } else if (e.keyword === 'enum') {
      lines.push(`${place(at)}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`);
    } else if (e.keyword === 'not') {
      // The schema's own words for what it forbids (`record` and `lookup` together).
      lines.push(`${place(at)}: ${(e.parentSchema as { description?: string } | undefined)?.description ?? 'has fields that exclude each other'}`);
    } else if (e.keyword === 'oneOf') {
      lines.push(
        `${place(at)}: ${e.parentSchema === schema.definitions.secret ? 'a secret must be a reference to the environment, "${env:NAME}" or { env: NAME }, never the value itself' : 'must be a text, a number, a boolean or { env: NAME }'}`,
      );
    } else {
      lines.push(`${place(at)}: ${e.message ?? e.keyword}`);
    }
  }
  return lines;
}

/**
 * `ignore` hides a failed response. On identity and access streams that would turn a failed read
 * into a shorter list taken as complete (a member dropped, a reader missing, or a grant kept that
 * was revoked), so it is accepted only where it skips one document's body.
 */
function refusedIgnores(manifest: RestManifest, place: Place): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, at: (string | number)[]): void => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i]));
    else if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) walk(v, [...at, key]);
    } else if (at.at(-1) === 'action' && value === 'ignore' && at.includes('error_handler')) {
      const allowed = at.slice(0, 5).join('.') === 'streams.documents.content.html.request';
      if (!allowed)
        problems.push(
          `${place(at)}: "ignore" is refused here: it would take a failed read of ${streamOf(at)} as a complete one. Use it only on streams.documents.content.html.request, where it skips one document.`,
        );
    }
  };
  walk(manifest, []);
  return problems;
}

function streamOf(at: readonly (string | number)[]): string {
  if (at[0] !== 'streams') return 'every stream (users, groups and access lists included)';
  if (at.includes('access')) return `${String(at[1])}' access lists`;
  if (at[1] === 'documents') return 'the documents listing (the sweep would delete what it did not show)';
  return `the ${String(at[1])} stream`;
}

/** Every JSONata expression compiles; every template parses. */
function expressionProblems(manifest: RestManifest, expressions: Expressions, place: Place): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, at: (string | number)[]): void => {
    if (typeof value === 'string') {
      if (!isExpression(at)) return;
      try {
        expressions.compile(value);
      } catch (error) {
        if (!(error instanceof RestExpressionError)) throw error;
        problems.push(`${place(at)}: ${error.message}`);
      }
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i]));
    else if (value !== null && typeof value === 'object') for (const [key, v] of Object.entries(value)) walk(v, [...at, key]);
  };
  walk(manifest.streams, ['streams']);
  walk(manifest.requester.error_handler, ['requester', 'error_handler']);
  const template = manifest.streams.documents.content.html?.template;
  if (template !== undefined) {
    try {
      Mustache.parse(template);
    } catch (error) {
      problems.push(`${place(['streams', 'documents', 'content', 'html', 'template'])}: ${(error as Error).message}`);
    }
  }
  return problems;
}

const EXPRESSION_KEYS = new Set(['filter', 'public', 'inherit', 'predicate', 'version', 'cursor', 'tombstone', 'has_more']);

function isExpression(at: readonly (string | number)[]): boolean {
  const key = at.at(-1);
  const parent = at.at(-2);
  if (typeof key !== 'string') return false;
  if (parent === 'map') return true;
  if (parent === 'batch') return ['action', 'body', 'status', 'result_body'].includes(key);
  if (parent === 'requester' || at.includes('request_body')) return false;
  return EXPRESSION_KEYS.has(key) || (key === 'path' && parent === 'field') || (key === 'url' && parent === 'binary');
}

/** Every `type: hook` paginator and authenticator: its module loaded from the manifest's folder, its export a function. */
function hookProblems(manifest: RestManifest, dir: string, place: Place): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, at: (string | number)[]): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, [...at, i]));
    if (value === null || typeof value !== 'object') return;
    const key = at.at(-1);
    if ((key === 'paginator' || key === 'authenticator') && (value as { type?: unknown }).type === 'hook') {
      const problem = loadHook(value as HookSpec, dir);
      if (problem) problems.push(`${place([...at, problem.field])}: ${problem.message}`);
      return;
    }
    for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
  };
  walk(manifest, []);
  return problems;
}

function otherProblems(manifest: RestManifest, place: Place): string[] {
  const problems: string[] = [];
  const { documents, containers } = manifest.streams;
  const accesses: Array<[string[], RestManifest['streams']['documents']['access']]> = [[['streams', 'documents', 'access'], documents.access]];
  if (containers) accesses.push([['streams', 'containers', 'access'], containers.access]);
  for (const [at, access] of accesses) {
    if (!access.public && !access.field && !access.request && !access.inherit)
      problems.push(`${place(at)}: give at least one of public, field, request or inherit (otherwise nobody may see anything)`);
  }
  if (documents.access.inherit && !containers)
    problems.push(`${place(['streams', 'documents', 'access', 'inherit'])}: needs streams.containers to inherit from`);
  if (containers?.access.inherit) problems.push(`${place(['streams', 'containers', 'access', 'inherit'])}: containers do not inherit from containers`);
  if (!manifest.requester.batch) problems.push(...batchedWithoutEndpoint(manifest.streams, ['streams'], place));
  return problems;
}

/** Requesters marked `batch: true` in a manifest with no `requester.batch` to send them through. */
function batchedWithoutEndpoint(value: unknown, at: (string | number)[], place: Place): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => batchedWithoutEndpoint(v, [...at, i], place));
  if (value === null || typeof value !== 'object') return [];
  if (at.at(-1) === 'requester' && (value as { batch?: unknown }).batch === true)
    return [`${place([...at, 'batch'])}: needs requester.batch (the API's batch endpoint)`];
  return Object.entries(value).flatMap(([k, v]) => batchedWithoutEndpoint(v, [...at, k], place));
}
