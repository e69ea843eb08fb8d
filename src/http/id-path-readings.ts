/**
 * The ways a path under `/v1/files/` or `/v1/groups/` can be read as an operation on an id.
 *
 * Clients send ids two ways. Encoded (`encodeURIComponent`), an id is one path segment and the
 * path means exactly one thing. Raw, as the platform's own validator pastes them (Python
 * `requests` re-quotes only what a URL cannot hold), an id keeps its `/` and spreads over several
 * segments, so `/v1/files/a/download` may be "download `a`" or "the file `a/download`". The
 * readings of a path are listed in order of preference; the first whose id exists is served:
 *
 * 1. the operation its last segment names (`download`, `permissions`; groups: `members`), on the
 *    segments before it (the stem), each segment percent-decoded;
 * 2. the same, on the stem as written (for ids that hold something like `%41` themselves);
 * 3. files only: `GET /v1/files/{id}` on all the segments, decoded;
 * 4. the same, as written.
 *
 * Segments are split on a raw `/` only (a `%2F` stays inside its segment, part of the id); a
 * decoded segment keeps any `%` that does not start a valid escape (fetch sends a lone `%` as it
 * is). Trailing slashes are ignored, as the router ignores them, and
 * `/v1/files/permissions/metadata` is always the metadata endpoint. The encoded form of an id is
 * always the first reading of its path, so an encoded request always reaches its id.
 */

export type IdOperation = 'getFile' | 'downloadFile' | 'listFilePermissions' | 'listGroupMembers';

export interface IdReading {
  operation: IdOperation;
  id: string;
}

const FILES = '/v1/files/';
const GROUPS = '/v1/groups/';
const METADATA = 'permissions/metadata';
const FILE_SUFFIXES: Readonly<Record<string, IdOperation>> = { download: 'downloadFile', permissions: 'listFilePermissions' };

function tryDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Whether a path (or segment) is valid percent-encoding: every `%` starts an escape of UTF-8. */
export function isValidPercentEncoding(text: string): boolean {
  return !text.includes('%') || tryDecode(text) !== undefined;
}

/**
 * One segment, percent-decoded as far as it can be: each run of escapes that spells UTF-8 is
 * decoded, anything else (a lone `%`, `%zz`, a broken byte sequence) is kept as written.
 */
export function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  return tryDecode(segment) ?? segment.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => tryDecode(run) ?? run);
}

/** The path that names a reading unambiguously: the id percent-encoded as one segment. */
export function encodedIdPath(reading: IdReading): string {
  const id = encodeURIComponent(reading.id);
  switch (reading.operation) {
    case 'getFile':
      return `${FILES}${id}`;
    case 'downloadFile':
      return `${FILES}${id}/download`;
    case 'listFilePermissions':
      return `${FILES}${id}/permissions`;
    case 'listGroupMembers':
      return `${GROUPS}${id}/members`;
  }
}

/**
 * Whether the router can take `path` as it is: not an id route at all, or an id route in its
 * encoded form (one valid segment for the id). Cheap: no decoding unless the id holds a `%`.
 */
export function isRoutableAsIs(path: string): boolean {
  const files = path.startsWith(FILES);
  if (!files && !path.startsWith(GROUPS)) return true;
  const rest = path.slice(files ? FILES.length : GROUPS.length);
  const slash = rest.indexOf('/');
  if (files && slash < 0) return isValidPercentEncoding(rest);
  if (files && rest === METADATA) return true;
  if (slash <= 0) return false;
  const tail = rest.slice(slash + 1);
  const known = files ? tail === 'download' || tail === 'permissions' : tail === 'members';
  return known && isValidPercentEncoding(rest.slice(0, slash));
}

/** The readings of `path` in order of preference (see the module comment); undefined when it names no id. */
export function idPathReadings(path: string): IdReading[] | undefined {
  const files = path.startsWith(FILES);
  if (!files && !path.startsWith(GROUPS)) return undefined;
  const rest = path.slice(files ? FILES.length : GROUPS.length).replace(/\/+$/, '');
  if (rest === '' || (files && rest === METADATA)) return undefined;
  const segments = rest.split('/');
  const last = segments[segments.length - 1] ?? '';
  const suffixed = segments.length > 1 ? (files ? FILE_SUFFIXES[last] : last === 'members' ? 'listGroupMembers' : undefined) : undefined;
  const readings: IdReading[] = [];
  const add = (operation: IdOperation, parts: string[]): void => {
    for (const id of [parts.map(decodeSegment).join('/'), parts.join('/')]) {
      if (id !== '' && !readings.some((r) => r.operation === operation && r.id === id)) readings.push({ operation, id });
    }
  };
  if (suffixed) add(suffixed, segments.slice(0, -1));
  if (files) add('getFile', segments);
  return readings.length > 0 ? readings : undefined;
}
