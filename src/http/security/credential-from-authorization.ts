/** `Bearer <key>`: the scheme in any case (RFC 7235), one or more spaces (RFC 6750's `1*SP`), the key. */
const BEARER = /^bearer +([\x21-\x7e]+)$/i;
/** The bare key: visible ASCII, no whitespace. */
const BARE = /^[\x21-\x7e]+$/;

/**
 * The credential an `Authorization` header value carries, in one of the two documented forms:
 * `Bearer <key>` or the bare key (the platform's connector may send either); anything else (another
 * scheme, a tab or a second word after the credential, control or non-ASCII characters) carries
 * none. This is the only place a credential is read from: never the query string or a body, where
 * it would end up in URLs and logs.
 */
export function credentialFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // HTTP servers drop the whitespace around a header value; do it too, for callers that did not.
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  const bearer = BEARER.exec(value);
  if (bearer) return bearer[1];
  // `Bearer` alone is a scheme without its credential, not a key.
  return BARE.test(value) && !/^bearer$/i.test(value) ? value : undefined;
}
