import jsonata from 'jsonata';

/** An expression that cannot be compiled or evaluated; the message names the expression, never a record's values. */
export class RestExpressionError extends Error {
  override readonly name = 'RestExpressionError';
}

/**
 * The manifest's JSONata expressions, compiled once (at load, so a syntax error is reported with
 * its place in the file) and evaluated against records. JSONata is declarative: no JavaScript runs
 * from a manifest, and a record's fields cannot reach the process.
 */
export class Expressions {
  private readonly compiled = new Map<string, jsonata.Expression>();

  /** Throws RestExpressionError with JSONata's own message (position included). */
  compile(source: string): jsonata.Expression {
    let found = this.compiled.get(source);
    if (found) return found;
    try {
      found = jsonata(source);
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
      throw new RestExpressionError(`Expression ${JSON.stringify(source)} failed: ${(error as Error).message}`);
    }
    return plain(value);
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
