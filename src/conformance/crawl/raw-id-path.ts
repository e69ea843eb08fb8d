/**
 * Paths with an id pasted in raw, as the platform's own tools send them. Its validator builds
 * `/v1/files/<id>` with Python `requests`, which does not percent-encode the id: it only re-quotes
 * what a URL cannot hold (`requests.utils.requote_uri`), then urllib3 normalises the path (dot
 * segments removed, stray `%` escaped). The crawler is assumed to do the same. This module
 * reproduces that pipeline, so `--raw-ids` reaches a gateway exactly as those clients would.
 */

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const ALWAYS_SAFE = /^[A-Za-z0-9_.\-~]$/;
const SAFE_WITH_PERCENT = "!#$%&'()*+,/:;=?@[]~";
const SAFE_WITHOUT_PERCENT = "!#$&'()*+,/:;=?@[]~";

/** Python's `urllib.parse.quote(s, safe)`: UTF-8 percent-encoding of everything else, upper-case hex. */
function quote(s: string, safe: string): string {
  let out = '';
  for (const ch of s) {
    if (ALWAYS_SAFE.test(ch) || safe.includes(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `requests.utils.unquote_unreserved`: decodes escapes of unreserved characters; undefined for an invalid escape. */
function unquoteUnreserved(uri: string): string | undefined {
  const parts = uri.split('%');
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i] ?? '';
    const h = part.slice(0, 2);
    if (h.length === 2 && /^[A-Za-z0-9]{2}$/.test(h)) {
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) return undefined;
      const c = String.fromCharCode(parseInt(h, 16));
      parts[i] = UNRESERVED.test(c) ? c + part.slice(2) : `%${part}`;
    } else parts[i] = `%${part}`;
  }
  return parts.join('');
}

/** `requests.utils.requote_uri`. */
function requoteUri(uri: string): string {
  const unquoted = unquoteUnreserved(uri);
  return unquoted === undefined ? quote(uri, SAFE_WITHOUT_PERCENT) : quote(unquoted, SAFE_WITH_PERCENT);
}

/** RFC 3986 §5.2.4, as urllib3 applies it to every request path. */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split('/');
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '..') {
      if (out.length > 1) out.pop();
      if (last) out.push('');
    } else if (segment === '.') {
      if (last) out.push('');
    } else out.push(segment);
  });
  return out.join('/');
}

const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
const QUERY_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]$/;

/**
 * urllib3's `_encode_invalid_chars`: escapes what `allowed` does not hold, as UTF-8; a `%` is kept
 * only when every `%` in the component starts a valid escape (else each becomes `%25`).
 */
function encodeInvalidChars(component: string, allowed: RegExp): string {
  const upper = component.replace(/%[0-9A-Fa-f]{2}/g, (m) => m.toUpperCase());
  const escapes = upper.match(/%[0-9A-F]{2}/g)?.length ?? 0;
  const keepPercent = escapes === upper.split('%').length - 1;
  let out = '';
  for (const ch of upper) {
    if ((keepPercent && ch === '%') || allowed.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The path and query a Python `requests` client sends for `pathAndQuery` (an id pasted into a
 * path): urllib3's `parse_url` first (a `#` ends the URL, a `?` starts the query; dot segments
 * removed; invalid characters escaped), then `requote_uri`. Ids holding `?` or `#` cannot be sent raw.
 */
export function quoteLikePlatformClient(pathAndQuery: string): string {
  const m = /^([^?#]*)(?:\?([^#]*))?/.exec(pathAndQuery);
  const path = encodeInvalidChars(removeDotSegments(m?.[1] ?? ''), PATH_CHARS);
  const query = m?.[2] ? `?${encodeInvalidChars(m[2], QUERY_CHARS)}` : ''; // an empty query is dropped, as urlunparse does
  return requoteUri(`${path}${query}`);
}

/** `/v1/files/<id><suffix>` (or groups): the request path, encoded or raw, and the encoded path the contract matches. */
export function idPath(prefix: '/v1/files/' | '/v1/groups/', id: string, suffix: string, raw: boolean): { path: string; contractPath: string } {
  const contractPath = `${prefix}${encodeURIComponent(id)}${suffix}`;
  return { path: raw ? quoteLikePlatformClient(`${prefix}${id}${suffix}`) : contractPath, contractPath };
}
