import crypto from 'node:crypto';

/**
 * The longest id the gateway serves, in characters of its percent-encoded form (the form every
 * link the gateway sends uses; a raw path is never longer). It keeps `/v1/files/{id}/permissions`
 * and a `$skiptoken` that carries an id (as a key, and in a `$filter` on `id`) inside the URL
 * limits, whatever the id. Part of what is served: changing it changes ids the platform knows.
 */
export const MAX_ID_LENGTH = 1024;

/** What a digest id looks like after `<source>:`; a native id of this shape is digested too, so the two never meet. */
const DIGEST_ID = /^~[0-9a-f]{64}$/;

/** The length of `text` percent-encoded (`encodeURIComponent`); undefined when it cannot be (a lone surrogate). */
export function encodedLength(text: string): number | undefined {
  try {
    return encodeURIComponent(text).length;
  } catch {
    return undefined;
  }
}

/**
 * The served id of a source's item: `<source>:<native id>`, unless that is longer than
 * `MAX_ID_LENGTH` percent-encoded (or cannot be encoded at all); then `<source>:~` and the
 * SHA-256 of the native id's UTF-8 in lower-case hex (70-odd characters, the same on every run).
 *
 * Why a digest rather than refusing the item: ids are opaque to the platform, so the item stays
 * searchable, and a refused item would be a failed item on every run, each counting against the
 * error budget (enough deep folders would stop the source's syncs). Its name, URL and parent
 * still say what it is; the staging row keeps the native id.
 */
export function globalId(source: string, nativeId: string): string {
  const id = `${source}:${nativeId}`;
  const length = encodedLength(id);
  if (length !== undefined && length <= MAX_ID_LENGTH && !DIGEST_ID.test(nativeId)) return id;
  return `${source}:~${crypto.hash('sha256', nativeId, 'hex')}`;
}
