import jsonata from 'jsonata';

/** An expression that cannot be compiled or evaluated; the message names the expression, never a record's values. */
export class RestExpressionError extends Error {
  override readonly name: string = 'RestExpressionError';
}

/** An expression that ran longer or deeper than `expression_limits` allow: it fails its record (or its stream), never hangs a run. */
export class RestExpressionLimitError extends RestExpressionError {
  override readonly name = 'RestExpressionLimitError';
}

/** Bounds on one evaluation (JSONata's own `timeout` and `stack` guardrails, checked at every step it evaluates). */
export interface ExpressionLimits {
  /** Wall-clock time of one evaluation. */
  timeoutMs: number;
  /** Nested evaluation steps (a recursive function's calls, each several steps deep). */
  maxDepth: number;
}

export const DEFAULT_EXPRESSION_LIMITS: Readonly<ExpressionLimits> = Object.freeze({ timeoutMs: 1000, maxDepth: 300 });

/**
 * The manifest's JSONata expressions, compiled once (at load, so a syntax error is reported with
 * its place in the file) and evaluated against records. JSONata is declarative: no JavaScript runs
 * from a manifest, and a record's fields cannot reach the process.
 */
export class Expressions {
  private readonly compiled = new Map<string, jsonata.Expression>();

  constructor(private readonly limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS) {}

  /** Throws RestExpressionError with JSONata's own message (position included). */
  compile(source: string): jsonata.Expression {
    let found = this.compiled.get(source);
    if (found) return found;
    try {
      found = jsonata(source, { timeout: this.limits.timeoutMs, stack: this.limits.maxDepth });
    } catch (error) {
      const e = error as { message?: string; position?: number };
      throw new RestExpressionError(
        `${e.message ?? String(error)}${e.position === undefined ? '' : ` (at character ${e.position})`} in ${JSON.stringify(source)}`,
      );
    }
    this.compiled.set(source, found);
    return found;
  }

  /** The expression's value over `input` as plain JSON data (`undefined` when it selects nothing). */
  async evaluate(source: string, input: unknown): Promise<unknown> {
    let value: unknown;
    try {
      value = await this.compile(source).evaluate(input);
    } catch (error) {
      if (error instanceof RestExpressionError) throw error;
      throw this.failure(source, error);
    }
    return plain(value);
  }

  /** JSONata's guardrails throw D1012 (timeout) and D1011 (stack depth): named, with the manifest field that sets the bound. */
  private failure(source: string, error: unknown): RestExpressionError {
    const code = (error as { code?: string }).code;
    const quoted = JSON.stringify(source);
    if (code === 'D1012')
      return new RestExpressionLimitError(`Expression ${quoted} ran longer than ${this.limits.timeoutMs} ms (expression_limits.timeout_ms); stopped`);
    if (code === 'D1011')
      return new RestExpressionLimitError(`Expression ${quoted} ran deeper than ${this.limits.maxDepth} nested steps (expression_limits.max_depth); stopped`);
    return new RestExpressionError(`Expression ${quoted} failed: ${(error as Error).message}`);
  }

  async text(source: string, input: unknown): Promise<string | undefined> {
    const value = await this.evaluate(source, input);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new RestExpressionError(`Expression ${JSON.stringify(source)} gave ${Array.isArray(value) ? 'a list' : 'an object'} where a text was expected`);
  }

  async truth(source: string, input: unknown): Promise<boolean> {
    return (await this.evaluate(source, input)) === true;
  }

  /** A list: a single value becomes a list of one, nothing an empty list. */
  async list(source: string, input: unknown): Promise<unknown[]> {
    const value = await this.evaluate(source, input);
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  }
}

/** JSONata's results carry internal markers (sequences, frozen arrays): copy them out as plain data. */
function plain(value: unknown): unknown {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/**
 * A value at a dotted path (`data.items`): each step takes the longest run of segments that is a
 * key of the object there, so a key holding dots (`@odata.nextLink`) is found whole. An empty path
 * is the value itself.
 */
export function selectPath(value: unknown, path: string | undefined): unknown {
  if (path === undefined || path === '' || path === '.') return value;
  const segments = path.split('.');
  let current: unknown = value;
  let i = 0;
  while (i < segments.length) {
    if (current === null || typeof current !== 'object') return undefined;
    const record = current as Record<string, unknown>;
    let step = 0;
    for (let n = segments.length - i; n >= 1; n -= 1) {
      if (Object.hasOwn(record, segments.slice(i, i + n).join('.'))) {
        step = n;
        break;
      }
    }
    if (step === 0) return undefined;
    current = record[segments.slice(i, i + step).join('.')];
    i += step;
  }
  return current;
}
