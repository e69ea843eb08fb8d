/** What a failed fetch says: the error code under fetch's wrapping, and a bounded part of an error body. */

const ERROR_BODY_MAX_BYTES = 8 * 1024;

/**
 * The system or undici error code of a fetch failure. fetch wraps it: `TypeError('fetch failed')`
 * whose `cause` (or one of an AggregateError's `errors`) carries the code.
 */
export function networkErrorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  const fromCause = networkErrorCode(cause, depth + 1);
  if (fromCause !== undefined) return fromCause;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = networkErrorCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** At most `ERROR_BODY_MAX_BYTES` of an error body: enough for a message, bounded for a huge HTML page. */
export async function readSnippet(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < ERROR_BODY_MAX_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch {
    return text;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
