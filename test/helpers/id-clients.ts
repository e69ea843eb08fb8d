import http from 'node:http';
import { encodedIdPath, type IdOperation, type IdReading } from '../../src/http/id-path-readings';
import { AUTH } from './test-gateway';

/**
 * What Python `requests` (the platform's validator) sends for a URL with an id pasted in raw:
 * urllib3 removes dot segments and escapes what a path cannot hold (UTF-8, upper-case hex; if any
 * `%` does not start a valid escape, every `%` becomes `%25`), then `requote_uri` decodes escapes
 * of unreserved characters. `/ : + ! ' ( ) * , ; = @ & $ ~` are left as they are.
 */
export function quoteLikePythonRequests(path: string): string {
  const PATH_CHARS = /^[A-Za-z0-9._~\-!$&'()*+,;=:@/]$/;
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '..') segments.pop();
    else if (s !== '.') segments.push(s);
  }
  if (path.startsWith('/') && (segments.length === 0 || segments[0] !== '')) segments.unshift('');
  if (path.endsWith('/.') || path.endsWith('/..')) segments.push('');
  const normalised = segments.join('/');
  const escapes = normalised.match(/%[0-9A-Fa-f]{2}/g)?.length ?? 0;
  const keepPercents = escapes === normalised.split('%').length - 1;
  let quoted = '';
  for (const ch of normalised.replace(/%[0-9A-Fa-f]{2}/g, (m) => m.toUpperCase())) {
    if ((ch === '%' && keepPercents) || PATH_CHARS.test(ch)) quoted += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) quoted += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return quoted.replace(/%([0-9A-F]{2})/g, (m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(c) ? c : m;
  });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** GET with the path sent byte for byte as given (no client-side normalisation). */
export function getExact(base: string, pathAndQuery: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${pathAndQuery}`, { headers: AUTH }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
  });
}

/** GET through `fetch`, which builds the URL itself (WHATWG: a lone `%` stays, `.` segments go). */
export async function getWithFetch(url: string): Promise<Answer> {
  const res = await fetch(url, { headers: AUTH });
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

/** How a client puts an id into a path: encoded as one segment, or pasted in raw (Python `requests`, `fetch`). */
export type Client = 'encoded' | 'python' | 'fetch';
export const CLIENTS: readonly Client[] = ['encoded', 'python', 'fetch'];

const SUFFIX: Record<IdOperation, string> = { getFile: '', downloadFile: '/download', listFilePermissions: '/permissions', listGroupMembers: '/members' };

/** GET `reading` on the gateway at `base` the way `client` spells its path. */
export function sendReading(base: string, client: Client, reading: IdReading, query = ''): Promise<Answer> {
  const prefix = reading.operation === 'listGroupMembers' ? '/v1/groups/' : '/v1/files/';
  if (client === 'encoded') return getExact(base, `${encodedIdPath(reading)}${query}`);
  if (client === 'python') return getExact(base, `${quoteLikePythonRequests(`${prefix}${reading.id}${SUFFIX[reading.operation]}`)}${query}`);
  return getWithFetch(`${base}${prefix}${reading.id}${SUFFIX[reading.operation]}${query}`);
}
