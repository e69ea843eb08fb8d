import type { Profile } from '../conformance-profile';
import type { ProbeResult } from './crawl-record';
import type { AuthForm, RequestOptions } from './gateway-client';

/** One request a probe makes, and how its answer is judged. */
export interface Probe {
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

/** What the probes aim at: ids the crawl found (or an unknown one), the key and the profile judging. */
export interface ProbeAim {
  /** Random per run, so wrong keys and unknown ids never match anything real. */
  random: string;
  unknown: string;
  fileId: string;
  binaryId: string;
  groupId: string;
  /** nextLinks the crawl followed; one carrying a `$skiptoken` is tampered with. */
  nextLinks: string[];
  key: string;
  authForm: AuthForm;
  profile: Profile;
}

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

/** Missing and wrong keys on every endpoint. */
function missingAndWrongKeys(a: ProbeAim): Probe[] {
  const endpoints: Array<[string, boolean]> = [
    ['/v1/files', false],
    [`/v1/files/${enc(a.fileId)}`, false],
    [`/v1/files/${enc(a.binaryId)}/download`, true],
    [`/v1/files/${enc(a.fileId)}/permissions`, false],
    ['/v1/files/permissions/metadata', false],
    ['/v1/users', false],
    ['/v1/groups', false],
    [`/v1/groups/${enc(a.groupId)}/members`, false],
  ];
  const wrong = `conformance-wrong-key-${a.random}`;
  return endpoints.flatMap(([path, download]): Probe[] => [
    { check: 'auth.missing-key', description: 'no Authorization header', path, expect: '401', otherwise: 'fail', auth: 'none', download },
    { check: 'auth.wrong-key', description: 'a wrong key as Bearer', path, expect: '401', otherwise: 'fail', auth: { header: `Bearer ${wrong}` }, download },
    { check: 'auth.wrong-key', description: 'a wrong bare key', path, expect: '401', otherwise: 'fail', auth: { header: wrong }, download },
  ]);
}

/** The Authorization form the crawl did not use must work too. */
function otherHeaderForm(a: ProbeAim): Probe[] {
  const other = a.authForm === 'bearer' ? { header: a.key } : { header: `Bearer ${a.key}` };
  const otherName = a.authForm === 'bearer' ? 'the bare key' : '"Bearer <key>"';
  return ['/v1/files?$top=1', '/v1/users?$top=1', '/v1/groups?$top=1'].map((path) => ({
    check: 'auth.header-forms',
    description: `${otherName} in Authorization (the crawl used the other form)`,
    path,
    expect: '200',
    otherwise: 'fail',
    auth: other,
  }));
}

/**
 * Malformed `$top`. Our contract refuses it (400); the platform's lets a gateway refuse or ignore
 * it, as long as the answer is no 5xx and the listing it starts still ends and lists every file.
 */
function malformedTop(a: ProbeAim): Probe[] {
  const judged: Pick<Probe, 'expect' | 'otherwise'> =
    a.profile === 'strict' ? { expect: '4xx', otherwise: 'fail' } : { expect: '2xx-or-4xx', otherwise: 'fail' };
  const files = ['abc', '-1', '0', '1.5'].map((top): Probe => ({
    check: 'robustness.malformed-top',
    description: `$top=${top}`,
    path: `/v1/files?$top=${enc(top)}`,
    ...judged,
    follow: true,
  }));
  const others = ['/v1/users', '/v1/groups', `/v1/files/${enc(a.fileId)}/permissions`, `/v1/groups/${enc(a.groupId)}/members`].map((path): Probe => ({
    check: 'robustness.malformed-top',
    description: '$top=abc',
    path: `${path}?$top=abc`,
    ...judged,
  }));
  return [...files, ...others];
}

/** Other options: malformed ones may be refused or ignored (never a 5xx); unknown ones should be ignored. */
function queryOptions(): Probe[] {
  const malformed = [
    '$skip=-1',
    '$skip=abc',
    `$filter=${enc('((')}`,
    `$filter=${enc("last_modified_datetime gt 'not-a-date'")}`,
    `$orderby=${enc('no_such_field desc')}`,
    `$select=${enc('no_such_field')}`,
  ];
  return [
    ...malformed.map((query): Probe => ({
      check: 'robustness.query-options',
      description: decodeURIComponent(query),
      path: `/v1/files?${query}`,
      expect: '2xx-or-4xx',
      otherwise: 'fail',
    })),
    {
      check: 'robustness.query-options',
      description: 'unknown options $count=true&$expand=content (should be ignored)',
      path: '/v1/files?$count=true&$expand=content',
      expect: '200',
      otherwise: 'warn',
    },
  ];
}

/** Tampered cursors: a served nextLink altered, and a made-up `$skiptoken`. */
function tamperedCursors(a: ProbeAim): Probe[] {
  const withToken = a.nextLinks.find((l) => /[?&](?:\$|%24)skiptoken=/i.test(l));
  const check = 'robustness.tampered-skiptoken';
  if (!withToken) {
    // The gateway's links carry no $skiptoken (e.g. $skip paging): a stray one may be ignored.
    return [
      {
        check,
        description: '$skiptoken=not-a-real-token (this gateway does not use $skiptoken)',
        path: '/v1/files?$skiptoken=not-a-real-token',
        expect: '2xx-or-4xx',
        otherwise: 'fail',
      },
    ];
  }
  return [
    ...tamperedLinks(withToken).map((url): Probe => ({
      check,
      description: 'a served nextLink with its $skiptoken altered',
      path: '',
      url,
      expect: '4xx',
      otherwise: 'fail',
    })),
    { check, description: '$skiptoken=not-a-real-token', path: '/v1/files?$skiptoken=not-a-real-token', expect: '4xx', otherwise: 'fail' },
  ];
}

/**
 * Unknown and over-long ids: a file or its download answered 200 fails. An access list or a
 * member list answered 200 is what the platform's sample does (it defaults to the wildcard and to
 * no members), harmless since the platform asks only about listed files and groups: accepted
 * under `platform`, a warning under `strict`.
 */
function unknownIds(a: ProbeAim): Probe[] {
  const listOfUnknown: Pick<Probe, 'expect' | 'otherwise'> =
    a.profile === 'platform' ? { expect: '2xx-or-4xx', otherwise: 'fail' } : { expect: '4xx', otherwise: 'warn' };
  const idProbes = (check: string, id: string, what: string): Probe[] => [
    { check, description: `${what} file id`, path: `/v1/files/${enc(id)}`, expect: '4xx', otherwise: 'fail' },
    { check, description: `the download of ${what} file`, path: `/v1/files/${enc(id)}/download`, expect: '4xx', otherwise: 'fail', download: true },
    { check, description: `the access list of ${what} file`, path: `/v1/files/${enc(id)}/permissions`, ...listOfUnknown },
    { check, description: `the members of ${what} group`, path: `/v1/groups/${enc(id)}/members`, ...listOfUnknown },
  ];
  return [...idProbes('robustness.unknown-id', a.unknown, 'an unknown'), ...idProbes('robustness.long-id', 'x'.repeat(2000), 'a 2,000-character')];
}

/** Path traversal in ids and in the path itself. */
function pathTraversal(): Probe[] {
  const check = 'robustness.path-traversal';
  const traversal = ['../../../../etc/passwd', '..\\..\\..\\..\\windows\\win.ini', '..%2f..%2f..%2fetc%2fpasswd', '/etc/passwd'];
  return [
    ...traversal.flatMap((id): Probe[] => [
      { check, description: `file id ${JSON.stringify(id)}`, path: `/v1/files/${enc(id)}`, expect: '4xx', otherwise: 'fail' },
      {
        check,
        description: `download of file id ${JSON.stringify(id)}`,
        path: `/v1/files/${enc(id)}/download`,
        expect: '4xx',
        otherwise: 'fail',
        download: true,
      },
    ]),
    {
      check,
      description: 'access list of file id "../../../../etc/passwd"',
      path: `/v1/files/${enc(traversal[0] ?? '')}/permissions`,
      expect: '4xx',
      otherwise: 'fail',
    },
    {
      check,
      description: 'members of group id "../../../../etc/passwd"',
      path: `/v1/groups/${enc(traversal[0] ?? '')}/members`,
      expect: '4xx',
      otherwise: 'fail',
    },
    { check, description: 'raw ".." segments in the path', path: '/v1/files/../../../../etc/passwd', expect: '4xx', otherwise: 'fail' },
  ];
}

/** A route that does not exist. */
function unknownRoute(a: ProbeAim): Probe[] {
  return [{ check: 'robustness.unknown-route', description: 'a route that does not exist', path: `/v1/${a.unknown}`, expect: '4xx', otherwise: 'fail' }];
}

/** Every family of probes, in the order they are sent and reported. */
export const PROBE_FAMILIES: ReadonlyArray<{ name: string; probes: (aim: ProbeAim) => Probe[] }> = [
  { name: 'missing and wrong keys', probes: missingAndWrongKeys },
  { name: 'the other Authorization form', probes: otherHeaderForm },
  { name: 'malformed $top', probes: malformedTop },
  { name: 'other query options', probes: queryOptions },
  { name: 'tampered cursors', probes: tamperedCursors },
  { name: 'unknown and over-long ids', probes: unknownIds },
  { name: 'path traversal', probes: pathTraversal },
  { name: 'an unknown route', probes: unknownRoute },
];
