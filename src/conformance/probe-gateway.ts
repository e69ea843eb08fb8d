import crypto from 'node:crypto';
import type { Profile } from './conformance-profile';
import { errorEnvelope } from './contract-validation';
import { listAll } from './crawl-gateway';
import type { ProbeChain, ProbeResult } from './crawl-record';
import type { AuthForm, GatewayClient, GatewayResponse, RequestOptions } from './gateway-client';

/** What the crawl found that probes can aim at (a real file, a binary, a group, real nextLinks). */
export interface ProbeTargets {
  fileId?: string;
  binaryId?: string;
  groupId?: string;
  /** nextLinks the crawl followed; one carrying a `$skiptoken` is tampered with. */
  nextLinks: string[];
  /** Every file id the crawl listed: a listing a probe follows to its end must list the same. */
  fileIds: ReadonlySet<string>;
}

/** Who is probing and how: the key, the Authorization form the crawl used, the profile judging. */
export interface ProbeSetup {
  key: string;
  authForm: AuthForm;
  profile: Profile;
}

interface Probe {
  check: string;
  description: string;
  path: string;
  expect: ProbeResult['expect'];
  otherwise: ProbeResult['otherwise'];
  auth?: RequestOptions['auth'];
  download?: boolean;
  /** An absolute URL instead of a path below the base. */
  url?: string;
  /** A 200 files page is followed through its nextLinks, which must end and list every file. */
  follow?: boolean;
}

const LEAK = /root:[^:\n]*:0:0:|\[(?:fonts|extensions|mci extensions)\]|for 16-bit app support/i;

const enc = encodeURIComponent;

/** Variants of a nextLink whose `$skiptoken` was tampered with: one character changed, and truncated. */
export function tamperedLinks(link: string): string[] {
  const m = /([?&](?:\$|%24)skiptoken=)([^&#]*)/i.exec(link);
  const token = m?.[2];
  if (!m || !token || token.length < 2) return [];
  const at = m.index + (m[1] ?? '').length;
  const out: string[] = [];
  // Change one alphanumeric character near the middle (never inside a %XX escape).
  for (let i = Math.floor(token.length / 2), tried = 0; tried < token.length; i = (i + 1) % token.length, tried++) {
    const c = token[i] ?? '';
    if (/[A-Za-z0-9]/.test(c) && token[i - 1] !== '%' && token[i - 2] !== '%') {
      const flipped = `${token.slice(0, i)}${c === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
      out.push(`${link.slice(0, at)}${flipped}${link.slice(at + token.length)}`);
      break;
    }
  }
  if (token.length > 6) out.push(`${link.slice(0, at)}${token.slice(0, token.length - 4)}${link.slice(at + token.length)}`);
  return out;
}

function itemsOf(res: GatewayResponse): number | undefined {
  const body = res.json as { value?: unknown } | undefined;
  if (!body || typeof body !== 'object') return undefined;
  if (Array.isArray(body.value)) return body.value.length;
  const permissions = (body.value as { permissions?: unknown } | undefined)?.permissions;
  return Array.isArray(permissions) ? permissions.length : undefined;
}

/**
 * Follows a files page a probe got through its nextLinks to the end: whether the chain loops, and
 * how many of the crawl's files it never lists (a `$top=-1` read as a slice end drops items).
 */
async function followChain(client: GatewayClient, url: string, first: GatewayResponse, fileIds: ReadonlySet<string>): Promise<ProbeChain | undefined> {
  const body = first.json as { value?: unknown; '@odata.nextLink'?: unknown } | undefined;
  if (!body || !Array.isArray(body.value)) return undefined;
  const listed = new Set<string>();
  const collect = (items: unknown[]) => {
    for (const item of items) if (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') listed.add((item as { id: string }).id);
  };
  collect(body.value);
  const chain: ProbeChain = { pages: 1, listed: 0, missing: 0 };
  const next = body['@odata.nextLink'];
  if (typeof next === 'string' && next !== '') {
    const nextUrl = /^https?:\/\//i.test(next) ? next : new URL(next, url).href;
    if (nextUrl === url) chain.loop = url;
    else {
      const rest = await listAll(client, { collection: 'probe', kind: 'probe', firstUrl: nextUrl, keyOf: () => undefined, onItems: collect, maxPages: Math.max(10, fileIds.size + 2) });
      chain.pages += rest.pages;
      if (rest.loop) chain.loop = rest.loop.url;
      if (rest.failure) chain.failure = `${rest.failure.url}: ${rest.failure.message}`;
    }
  }
  chain.listed = listed.size;
  const missing = [...fileIds].filter((id) => !listed.has(id));
  chain.missing = missing.length;
  if (missing[0] !== undefined) chain.firstMissing = missing[0];
  return chain;
}

/**
 * Requests that change nothing but show how a gateway copes with what a crawler (or anyone who
 * reaches it) may send: missing and wrong keys on every endpoint, the other Authorization form,
 * malformed `$top` and other options, tampered cursors, unknown, over-long and path-traversal ids,
 * an unknown route. Only GETs.
 */
export async function probeGateway(client: GatewayClient, targets: ProbeTargets, setup: ProbeSetup): Promise<ProbeResult[]> {
  const { key, authForm } = setup;
  const random = crypto.randomBytes(6).toString('hex');
  const unknown = `conformance-probe-unknown-${random}`;
  const fileId = targets.fileId ?? unknown;
  const binaryId = targets.binaryId ?? fileId;
  const groupId = targets.groupId ?? unknown;
  const probes: Probe[] = [];

  // Authentication on every endpoint.
  const endpoints: Array<[string, boolean]> = [
    ['/v1/files', false],
    [`/v1/files/${enc(fileId)}`, false],
    [`/v1/files/${enc(binaryId)}/download`, true],
    [`/v1/files/${enc(fileId)}/permissions`, false],
    ['/v1/files/permissions/metadata', false],
    ['/v1/users', false],
    ['/v1/groups', false],
    [`/v1/groups/${enc(groupId)}/members`, false],
  ];
  const wrong = `conformance-wrong-key-${random}`;
  for (const [path, download] of endpoints) {
    probes.push({ check: 'auth.missing-key', description: 'no Authorization header', path, expect: '401', otherwise: 'fail', auth: 'none', download });
    probes.push({ check: 'auth.wrong-key', description: 'a wrong key as Bearer', path, expect: '401', otherwise: 'fail', auth: { header: `Bearer ${wrong}` }, download });
    probes.push({ check: 'auth.wrong-key', description: 'a wrong bare key', path, expect: '401', otherwise: 'fail', auth: { header: wrong }, download });
  }
  const other = authForm === 'bearer' ? { header: key } : { header: `Bearer ${key}` };
  const otherName = authForm === 'bearer' ? 'the bare key' : '"Bearer <key>"';
  for (const path of ['/v1/files?$top=1', '/v1/users?$top=1', '/v1/groups?$top=1']) {
    probes.push({ check: 'auth.header-forms', description: `${otherName} in Authorization (the crawl used the other form)`, path, expect: '200', otherwise: 'fail', auth: other });
  }

  // Malformed $top. Our contract refuses it (400); the platform's lets a gateway refuse or ignore
  // it, as long as the answer is no 5xx and the listing it starts still ends and lists every file.
  const malformedTop: Pick<Probe, 'expect' | 'otherwise'> = setup.profile === 'strict' ? { expect: '4xx', otherwise: 'fail' } : { expect: '2xx-or-4xx', otherwise: 'fail' };
  for (const top of ['abc', '-1', '0', '1.5']) {
    probes.push({ check: 'robustness.malformed-top', description: `$top=${top}`, path: `/v1/files?$top=${enc(top)}`, ...malformedTop, follow: true });
  }
  for (const path of ['/v1/users', '/v1/groups', `/v1/files/${enc(fileId)}/permissions`, `/v1/groups/${enc(groupId)}/members`]) {
    probes.push({ check: 'robustness.malformed-top', description: '$top=abc', path: `${path}?$top=abc`, ...malformedTop });
  }

  // Other options: malformed ones may be refused or ignored (never a 5xx); unknown ones should be ignored.
  for (const query of ['$skip=-1', '$skip=abc', `$filter=${enc('((')}`, `$filter=${enc("last_modified_datetime gt 'not-a-date'")}`, `$orderby=${enc('no_such_field desc')}`, `$select=${enc('no_such_field')}`]) {
    probes.push({ check: 'robustness.query-options', description: decodeURIComponent(query), path: `/v1/files?${query}`, expect: '2xx-or-4xx', otherwise: 'fail' });
  }
  probes.push({ check: 'robustness.query-options', description: 'unknown options $count=true&$expand=content (should be ignored)', path: '/v1/files?$count=true&$expand=content', expect: '200', otherwise: 'warn' });

  // Cursors.
  const withToken = targets.nextLinks.find((l) => /[?&](?:\$|%24)skiptoken=/i.test(l));
  if (withToken) {
    for (const url of tamperedLinks(withToken)) {
      probes.push({ check: 'robustness.tampered-skiptoken', description: 'a served nextLink with its $skiptoken altered', path: '', url, expect: '4xx', otherwise: 'fail' });
    }
    probes.push({ check: 'robustness.tampered-skiptoken', description: '$skiptoken=not-a-real-token', path: '/v1/files?$skiptoken=not-a-real-token', expect: '4xx', otherwise: 'fail' });
  } else {
    // The gateway's links carry no $skiptoken (e.g. $skip paging): a stray one may be ignored.
    probes.push({ check: 'robustness.tampered-skiptoken', description: '$skiptoken=not-a-real-token (this gateway does not use $skiptoken)', path: '/v1/files?$skiptoken=not-a-real-token', expect: '2xx-or-4xx', otherwise: 'fail' });
  }

  // Unknown and over-long ids: a file or its download answered 200 fails. An access list or a
  // member list answered 200 is what the platform's sample does (it defaults to the wildcard and to
  // no members), harmless since the platform asks only about listed files and groups: accepted
  // under `platform`, a warning under `strict`.
  const listOfUnknown: Pick<Probe, 'expect' | 'otherwise'> = setup.profile === 'platform' ? { expect: '2xx-or-4xx', otherwise: 'fail' } : { expect: '4xx', otherwise: 'warn' };
  const idProbes = (check: string, id: string, what: string) => {
    probes.push({ check, description: `${what} file id`, path: `/v1/files/${enc(id)}`, expect: '4xx', otherwise: 'fail' });
    probes.push({ check, description: `the download of ${what} file`, path: `/v1/files/${enc(id)}/download`, expect: '4xx', otherwise: 'fail', download: true });
    probes.push({ check, description: `the access list of ${what} file`, path: `/v1/files/${enc(id)}/permissions`, ...listOfUnknown });
    probes.push({ check, description: `the members of ${what} group`, path: `/v1/groups/${enc(id)}/members`, ...listOfUnknown });
  };
  idProbes('robustness.unknown-id', unknown, 'an unknown');
  idProbes('robustness.long-id', 'x'.repeat(2000), 'a 2,000-character');

  // Path traversal.
  const traversal = ['../../../../etc/passwd', '..\\..\\..\\..\\windows\\win.ini', '..%2f..%2f..%2fetc%2fpasswd', '/etc/passwd'];
  for (const id of traversal) {
    probes.push({ check: 'robustness.path-traversal', description: `file id ${JSON.stringify(id)}`, path: `/v1/files/${enc(id)}`, expect: '4xx', otherwise: 'fail' });
    probes.push({ check: 'robustness.path-traversal', description: `download of file id ${JSON.stringify(id)}`, path: `/v1/files/${enc(id)}/download`, expect: '4xx', otherwise: 'fail', download: true });
  }
  probes.push({ check: 'robustness.path-traversal', description: 'access list of file id "../../../../etc/passwd"', path: `/v1/files/${enc(traversal[0] ?? '')}/permissions`, expect: '4xx', otherwise: 'fail' });
  probes.push({ check: 'robustness.path-traversal', description: 'members of group id "../../../../etc/passwd"', path: `/v1/groups/${enc(traversal[0] ?? '')}/members`, expect: '4xx', otherwise: 'fail' });
  probes.push({ check: 'robustness.path-traversal', description: 'raw ".." segments in the path', path: '/v1/files/../../../../etc/passwd', expect: '4xx', otherwise: 'fail' });

  // An unknown route.
  probes.push({ check: 'robustness.unknown-route', description: 'a route that does not exist', path: `/v1/${unknown}`, expect: '4xx', otherwise: 'fail' });

  return Promise.all(
    probes.map(async (p): Promise<ProbeResult> => {
      const url = p.url ?? client.url(p.path);
      const res = await client.get(url, { kind: 'probe', mode: p.download ? 'hash' : 'json', auth: p.auth ?? 'default' });
      const envelope = errorEnvelope(res.json);
      const result: ProbeResult = { check: p.check, description: p.description, url, status: res.status, envelope: envelope !== undefined, expect: p.expect, otherwise: p.otherwise };
      if (envelope) result.code = envelope.code;
      const items = res.status >= 200 && res.status < 300 ? itemsOf(res) : undefined;
      if (items !== undefined) result.items = items;
      if (res.snippet && LEAK.test(res.snippet)) result.leaked = true;
      if (res.error) result.error = res.error;
      if (p.follow && res.status === 200) {
        const chain = await followChain(client, url, res, targets.fileIds);
        if (chain) result.chain = chain;
      }
      return result;
    }),
  );
}
