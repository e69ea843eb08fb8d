/**
 * Errors of the work-management API: `{errors: [{message, help}]}` with the status codes of the
 * reference (§3); `phrase` only on 500s. Handlers throw ApiError; the dispatcher renders it.
 * `help` points to the service's documentation of errors, on a neutral domain: the mock names no
 * vendor.
 */
export const ERROR_DOCS_URL = 'https://developers.work-management.example/docs/errors';
export const ERROR_HELP = `For more information on API status codes and how to handle them, read the docs on errors: ${ERROR_DOCS_URL}`;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra top-level members of the error body (e.g. `sync` on a 412). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function errorBody(message: string, options: { phrase?: string } = {}): { errors: Array<Record<string, string>> } {
  return { errors: [{ message, help: ERROR_HELP, ...(options.phrase ? { phrase: options.phrase } : {}) }] };
}

export const notFound = (type: string, gid: string): ApiError => new ApiError(404, `${type}: Unknown object: ${gid}`);
export const missingInput = (field: string): ApiError => new ApiError(400, `${field}: Missing input`);
export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const forbidden = (message = 'You do not have access to this object.'): ApiError => new ApiError(403, message);
export const cannotWrite = (field: string): ApiError => new ApiError(400, `${field}: Cannot write this property`);
export const noRoute = (): ApiError => new ApiError(404, 'No matching route for request');

export const RATE_LIMIT_MESSAGE = "You've made too many requests and hit a rate limit. Please retry after the given amount of time.";

const PHRASE_WORDS = [
  ['6', '7', '12', '3', '9', '21'],
  ['sad', 'sleepy', 'brave', 'tiny', 'grumpy', 'shiny'],
  ['squid', 'otters', 'lemurs', 'pandas', 'yaks', 'geckos'],
  ['snuggle', 'dance', 'juggle', 'wander', 'sing', 'nap'],
  ['softly', 'wildly', 'quietly', 'boldly', 'slowly', 'gladly'],
] as const;

/** A support phrase for a 500 ("6 sad squid snuggle softly"), derived from a number. */
export function phraseFor(n: number): string {
  return PHRASE_WORDS.map((words, i) => words[Math.abs(Math.floor(n / 6 ** i)) % words.length]).join(' ');
}
