import fs from 'node:fs';
import path from 'node:path';
import { parseExpectations } from '../../src/conformance/access/access-expectations';
import type { CheckInput } from '../../src/conformance/checks/check-input';
import { CHECKS, checkTable } from '../../src/conformance/checks/check-catalog';
import type { Profile } from '../../src/conformance/conformance-profile';
import { judgeProbe } from '../../src/conformance/checks/probe-judgement';
import { MAX_FINDINGS_PER_CHECK, runChecks } from '../../src/conformance/checks/run-checks';
import { ContractValidation } from '../../src/conformance/crawl/contract-validation';
import type { FileSummary, GroupRecord, ProbeResult, RecordedRun, UserRecord } from '../../src/conformance/crawl/crawl-record';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import type { Finding } from '../../src/conformance/finding';
import { tamperedLinks } from '../../src/conformance/crawl/probe-families';

const BASE = 'http://gw.test';
const T = '2025-01-01T00:00:00.000Z';

function htmlFile(
  id: string,
  permissions: FileSummary['permissions'] = {
    url: `${BASE}/v1/files/${id}/permissions`,
    status: 200,
    pages: 1,
    entries: [{ type: 'GROUP', id: '*', action: 'VIEW' }],
  },
): FileSummary {
  return {
    listing: {
      id,
      url: `${BASE}/v1/files`,
      keys: ['id', 'name', 'external_url', 'last_modified_datetime', 'status', 'content'],
      contentKeys: ['mime_type'],
      name: id,
      externalUrl: `https://x/${id}`,
      lastModified: T,
      status: 'active',
      mimeType: 'text/html',
    },
    detail: { url: `${BASE}/v1/files/${id}`, status: 200, id, mimeType: 'text/html', lastModified: T, bodyLength: 10, bodyType: 'string' },
    ...(permissions ? { permissions } : {}),
  };
}
const user = (id: string, o: { email?: unknown; state?: string } = {}): UserRecord => ({
  id,
  url: `${BASE}/v1/users`,
  email: 'email' in o ? o.email : `${id}@x.example`,
  state: o.state ?? 'Active',
});
const group = (id: string, entries: Array<[string, string]>): GroupRecord => ({
  id,
  url: `${BASE}/v1/groups`,
  members: { url: `${BASE}/v1/groups/${id}/members`, status: 200, pages: 1, entries: entries.map(([type, mid]) => ({ type, id: mid })) },
});

function run(patch: Partial<RecordedRun['crawl']> = {}, extra: Partial<RecordedRun> = {}): RecordedRun {
  return {
    crawl: {
      baseUrl: BASE,
      startedAt: T,
      finishedAt: T,
      metadata: { url: `${BASE}/v1/files/permissions/metadata`, status: 200, model: 'resource_permission' },
      files: [htmlFile('a')],
      users: [user('u1')],
      groups: [],
      listings: [],
      ...patch,
    },
    probes: [],
    violations: [],
    violationsDropped: 0,
    rateLimits: [],
    missingRetryAfter: [],
    transportErrors: [],
    stats: {
      requests: 1,
      bytes: 1,
      durationMs: 1,
      requestsPerSecond: 1,
      bytesPerSecond: 1,
      latencyMs: { count: 1, p50: 1, p90: 1, p99: 1, max: 1, mean: 1 },
      latencyByKind: {},
      requestsByKind: {},
      statusCounts: {},
      retries: 0,
      pacedMs: 0,
      slowdowns: 0,
      maxInFlight: 1,
    },
    ...extra,
  };
}

function check(r: RecordedRun, expectations?: CheckInput['expectations'], profile: Profile = 'strict'): Finding[] {
  return runChecks({ ...r, access: new EffectiveAccess(accessInputFromCrawl(r.crawl)), profile, ...(expectations ? { expectations } : {}) });
}
const bad = (findings: Finding[]) => findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}`);

describe('checks (pure functions over a recorded run)', () => {
  it('a minimal clean run passes every check, and every finding names a catalogued check', () => {
    const findings = check(run());
    expect(bad(findings)).toEqual([]);
    const ids = new Set(CHECKS.map((c) => c.id));
    expect(findings.filter((f) => !ids.has(f.check))).toEqual([]);
  });

  it('files whose external_url is not http(s) (file:// paths) give one warning with the count and what to set (issue 29)', () => {
    const local = (id: string): FileSummary => {
      const f = htmlFile(id);
      return { ...f, listing: { ...f.listing, externalUrl: `file:///srv/kb/${id}` } };
    };
    for (const profile of ['platform', 'strict'] as const) {
      const findings = check(run({ files: [local('a'), local('b'), htmlFile('c')] }), undefined, profile);
      expect(bad(findings)).toEqual(['warn files.external-url-openable']);
      const finding = findings.find((f) => f.check === 'files.external-url-openable');
      expect(finding?.message).toMatch(/^2 files have a file:\/\/ external_url, .*FILESYSTEM_BASE_URL/);
      expect(finding?.evidence).toMatchObject({ field: 'external_url', value: 'file:///srv/kb/a' });
    }
  });

  it('paging: relative nextLinks fail, another origin warns, a loop fails', () => {
    const listing = {
      collection: 'files',
      firstUrl: `${BASE}/v1/files`,
      pages: 2,
      items: 2,
      maxPageItems: 1,
      duplicates: [],
      nextLinks: ['/v1/files?$skip=1', 'https://elsewhere.test/v1/files?$skip=2'],
      loop: { url: `${BASE}/v1/files?$skip=1` },
    };
    expect(bad(check(run({ listings: [listing] })))).toEqual(['fail paging.absolute-next-link', 'warn paging.absolute-next-link', 'fail paging.terminates']);
  });

  it('groups: flattened only when a group lists a sub-group and all its users; partial overlap is fine; cycles warn', () => {
    const users = ['a', 'b', 'c'].map((id) => user(id));
    const flattened = [
      group('all', [
        ['GROUP', 'eng'],
        ['USER', 'a'],
        ['USER', 'b'],
      ]),
      group('eng', [
        ['USER', 'a'],
        ['USER', 'b'],
      ]),
    ];
    expect(bad(check(run({ users, groups: flattened })))).toEqual(['fail groups.not-flattened']);
    const overlap = [
      group('all', [
        ['GROUP', 'eng'],
        ['USER', 'a'],
        ['USER', 'c'],
      ]),
      group('eng', [
        ['USER', 'a'],
        ['USER', 'b'],
      ]),
    ];
    expect(bad(check(run({ users, groups: overlap })))).toEqual([]);
    const single = [
      group('all', [
        ['GROUP', 'eng'],
        ['USER', 'a'],
      ]),
      group('eng', [['USER', 'a']]),
    ];
    expect(bad(check(run({ users, groups: single })))).toEqual(['warn groups.not-flattened']);
    const cycle = [
      group('x', [
        ['GROUP', 'y'],
        ['USER', 'a'],
      ]),
      group('y', [
        ['GROUP', 'x'],
        ['USER', 'b'],
      ]),
    ];
    expect(bad(check(run({ users, groups: cycle })))).toEqual(['warn groups.cycles']);
    const huge = { collection: 'members:x', firstUrl: `${BASE}/v1/groups/x/members`, pages: 1, items: 6000, maxPageItems: 6000, nextLinks: [], duplicates: [] };
    expect(bad(check(run({ users, groups: [group('x', [['USER', 'a']])], listings: [huge] })))).toEqual(['warn groups.members-paged']);
    const dangling = [
      group('x', [
        ['USER', 'ghost'],
        ['GROUP', 'nowhere'],
      ]),
    ];
    expect(bad(check(run({ users, groups: dangling })))).toEqual(['fail groups.members-resolve', 'fail groups.members-resolve']);
  });

  it('permissions: USER * and non-VIEW fail, unknown principals fail, an empty list warns', () => {
    const entries = [
      { type: 'USER', id: '*', action: 'VIEW' },
      { type: 'GROUP', id: 'ghosts', action: 'VIEW' },
      { type: 'USER', id: 'u1', action: 'UPDATE' },
    ];
    const files = [
      htmlFile('a', { url: `${BASE}/v1/files/a/permissions`, status: 200, pages: 1, entries }),
      htmlFile('b', { url: `${BASE}/v1/files/b/permissions`, status: 200, pages: 1, entries: [] }),
    ];
    expect(bad(check(run({ files })))).toEqual([
      'fail permissions.view-only',
      'fail permissions.wildcard',
      'warn permissions.non-empty',
      'fail permissions.principals-resolve',
    ]);
  });

  it('users: missing and malformed emails fail, shared emails fail, inactive users are reported but not a problem', () => {
    const users = [
      user('a', { email: undefined }),
      user('b', { email: 'not-an-email' }),
      user('c', { email: 'Same@x.example' }),
      user('d', { email: 'same@x.example' }),
      user('e', { state: 'Inactive' }),
    ];
    const findings = check(run({ users }));
    expect(bad(findings)).toEqual(['fail users.email', 'fail users.email', 'fail users.unique-email']);
    expect(findings.find((f) => f.check === 'users.inactive')).toMatchObject({ severity: 'pass', evidence: { value: 'e@x.example' } });
  });

  it('files: an always-"now" timestamp is named as such; over 25 MB warns; future timestamps warn', () => {
    const started = new Date();
    const now1 = new Date(started.getTime() + 10).toISOString();
    const now2 = new Date(started.getTime() + 1500).toISOString();
    const moving = htmlFile('m');
    moving.listing.lastModified = now1;
    if (moving.detail) moving.detail.lastModified = now1;
    const big = htmlFile('big');
    big.listing.size = 30 * 1024 * 1024;
    const future = htmlFile('future');
    future.listing.lastModified = '2999-01-01T00:00:00Z';
    if (future.detail) future.detail.lastModified = '2999-01-01T00:00:00Z';
    const second: RecordedRun['second'] = {
      files: {
        listing: { collection: 'files', firstUrl: `${BASE}/v1/files`, pages: 1, items: 3, maxPageItems: 3, nextLinks: [], duplicates: [] },
        files: [
          ['m', now2],
          ['big', T],
          ['future', '2999-01-01T00:00:00Z'],
        ],
        startedAt: now2,
        finishedAt: now2,
      },
      users: {
        listing: { collection: 'users', firstUrl: `${BASE}/v1/users`, pages: 1, items: 1, maxPageItems: 1, nextLinks: [], duplicates: [] },
        ids: ['u1'],
      },
      groups: { listing: { collection: 'groups', firstUrl: `${BASE}/v1/groups`, pages: 1, items: 0, maxPageItems: 0, nextLinks: [], duplicates: [] }, ids: [] },
    };
    const findings = check(run({ files: [moving, big, future], startedAt: started.toISOString() }, { second }));
    expect(bad(findings)).toEqual(['warn files.size-limit', 'fail files.timestamp-stable', 'warn files.timestamp-plausible']);
    expect(findings.find((f) => f.check === 'files.timestamp-stable')?.message).toMatch(/looks like the current time/);
  });

  it('rate limits: remaining above the limit or non-numbers fail; ten identical samples are static; fewer are not judged', () => {
    const sample = (remaining: string, limit = '600') => ({ url: `${BASE}/v1/files`, family: 'x-ratelimit', limit, remaining, reset: '60' });
    expect(bad(check(run({}, { rateLimits: [sample('700'), sample('1', 'lots')] })))).toEqual(['fail rate-limit.coherent', 'fail rate-limit.coherent']);
    expect(bad(check(run({}, { rateLimits: Array.from({ length: 9 }, () => sample('599')) })))).toEqual([]);
    expect(bad(check(run({}, { rateLimits: Array.from({ length: 10 }, () => sample('599')) })))).toEqual(['fail rate-limit.not-static']);
    expect(bad(check(run({}, { missingRetryAfter: [{ url: `${BASE}/v1/files`, status: 429 }] })))).toEqual(['fail rate-limit.retry-after']);
  });

  it('caps findings per check and says how many more there were', () => {
    const users = Array.from({ length: 80 }, (_, i) => user(`u${i}`, { email: undefined }));
    const emails = check(run({ users })).filter((f) => f.check === 'users.email');
    expect(emails).toHaveLength(MAX_FINDINGS_PER_CHECK + 1);
    expect(emails[emails.length - 1]?.message).toBe('…and 30 more like these (80 in all).');
  });

  it('expectations: each email that can or cannot see as expected; unknown files fail', () => {
    const files = [htmlFile('a', { url: `${BASE}/v1/files/a/permissions`, status: 200, pages: 1, entries: [{ type: 'USER', id: 'u1', action: 'VIEW' }] })];
    const expectations = parseExpectations(
      'expectations:\n  - file: a\n    can_see: [u1@x.example, u2@x.example]\n    cannot_see: [u1@x.example]\n  - file: nope\n    can_see: [u1@x.example]\n',
    );
    const findings = check(run({ files, users: [user('u1'), user('u2')] }), expectations).filter((f) => f.check === 'access.expectations');
    expect(findings.map((f) => [f.severity, f.evidence.field, f.evidence.value])).toEqual([
      ['fail', 'can_see', 'u2@x.example'],
      ['fail', 'cannot_see', 'u1@x.example'],
      ['fail', 'file', 'nope'],
    ]);
  });
});

describe('probe verdicts', () => {
  const probe = (p: Partial<ProbeResult>): ProbeResult => ({
    check: 'robustness.unknown-id',
    description: 'd',
    url: `${BASE}/v1/x`,
    status: 404,
    envelope: true,
    code: 'NOT_FOUND',
    expect: '4xx',
    otherwise: 'fail',
    ...p,
  });
  it.each<[string, Partial<ProbeResult>, string | undefined]>([
    ['a 4xx envelope', {}, undefined],
    ['a 5xx', { status: 500, code: 'INTERNAL_SERVER_ERROR' }, 'fail'],
    ['a 4xx without the envelope', { envelope: false }, 'fail'],
    ['a 200 where a 4xx was wanted', { status: 200, envelope: false }, 'fail'],
    ['a 200 where a 4xx was only preferred', { status: 200, envelope: false, otherwise: 'warn' }, 'warn'],
    ['a leaked file', { status: 200, leaked: true, otherwise: 'warn' }, 'fail'],
    ['no answer', { status: 0, envelope: false }, 'fail'],
    ['a 401 with the wrong code', { expect: '401', status: 401, code: 'NOT_FOUND' }, 'fail'],
    ['a wrong key refused with 429 once failed authentication is throttled', { expect: '401', status: 429, code: 'RATE_LIMIT_EXCEEDED' }, undefined],
    ['a wrong key answered 200', { expect: '401', status: 200, envelope: false }, 'fail'],
    ['a wrong key answered 429 without the envelope', { expect: '401', status: 429, envelope: false }, 'fail'],
    ['a 400 to a malformed option that may be ignored', { expect: '2xx-or-4xx', status: 400, code: 'INPUT_VALIDATION_FAILED' }, undefined],
  ])('%s', (_what, patch, severity) => {
    expect(judgeProbe(probe(patch))?.severity).toBe(severity);
  });

  it('tampers with one character of a $skiptoken, and truncates it', () => {
    const link = 'http://gw/v1/files?$top=5&$skiptoken=eyJvIjo1fQ.c2lnbmF0dXJl&x=1';
    const [flipped, truncated] = tamperedLinks(link);
    expect(flipped).not.toBe(link);
    expect(flipped?.length).toBe(link.length);
    expect(flipped?.endsWith('&x=1')).toBe(true);
    expect(truncated).toBe('http://gw/v1/files?$top=5&$skiptoken=eyJvIjo1fQ.c2lnbmF0&x=1');
    expect(tamperedLinks('http://gw/v1/files?$skip=5')).toEqual([]);
  });
});

describe('ContractValidation', () => {
  let v: ContractValidation;
  beforeAll(async () => {
    v = await ContractValidation.create('strict');
  });
  const json = { 'content-type': 'application/json' };
  const at = (path: string, status: number, body: unknown, headers: Record<string, string> = json) =>
    v.check({ url: `${BASE}${path}`, method: 'GET', path, status, headers, json: body });

  it('accepts a valid page and flags a file without its required fields', () => {
    const file = { id: 'a', name: 'A', external_url: 'https://x/a', last_modified_datetime: T, status: 'active', content: { mime_type: 'text/html' } };
    expect(at('/v1/files', 200, { '@odata.context': 'x', value: [file] })).toEqual([]);
    const { status: _omitted, ...noStatus } = file;
    expect(at('/v1/files', 200, { '@odata.context': 'x', value: [noStatus] }).map((p) => [p.check, p.field])).toEqual([['contract.responses', 'body/value/0']]);
  });

  it('flags an undocumented status, an un-enveloped error, a code that does not go with its status, and a 200 off the contract', () => {
    expect(at('/v1/files', 418, { error: { code: 'NOT_FOUND', message: 'x' } }).map((p) => p.check)).toEqual(['contract.error-envelope', 'contract.responses']);
    expect(at('/v1/files/a', 404, { code: 'NOT_FOUND', message: 'x' }).map((p) => p.check)).toContain('contract.error-envelope');
    expect(at('/v1/files', 400, { error: { code: 'NOT_FOUND', message: 'x' } }).map((p) => p.message)).toEqual([expect.stringMatching(/goes with HTTP 404/)]);
    expect(at('/v1/secret', 200, {}).map((p) => p.check)).toEqual(['contract.responses']);
    expect(at('/v1/files', 200, undefined, { 'content-type': 'text/plain' }).map((p) => p.field)).toEqual(['Content-Type']);
  });
});

describe('ContractValidation by profile: what the platform allows is not a violation under platform, but is under strict', () => {
  const validations = new Map<string, ContractValidation>();
  beforeAll(async () => {
    for (const profile of ['platform', 'strict'] as const) validations.set(profile, await ContractValidation.create(profile));
  });
  const json = { 'content-type': 'application/json' };
  const seen = (profile: 'platform' | 'strict', path: string, status: number, body: unknown, headers: Record<string, string> = json) =>
    (validations.get(profile) as ContractValidation)
      .check({ url: `${BASE}${path}`, method: 'GET', path, status, headers, json: body })
      .map((v) => `${v.severity ?? 'fail'} ${v.check} ${v.field ?? ''}`);
  const file = {
    id: 'kb-001',
    name: 'A',
    external_url: 'https://x/a',
    last_modified_datetime: T,
    content: { mime_type: 'application/pdf', download_path: '/kb-001/download', size: null, sha1_hash: null },
  };
  const cases: Array<[string, string, number, unknown, Record<string, string>]> = [
    [
      'a file with metadata_url and children_url, without status, size and sha1_hash null',
      '/v1/files',
      200,
      { '@odata.context': 'x', value: [{ ...file, metadata_url: 'https://x/m', children_url: 'https://x/c' }] },
      json,
    ],
    [
      'an upper-case sha1_hash',
      '/v1/files/kb-001',
      200,
      { value: { ...file, status: 'active', content: { ...file.content, size: 3, sha1_hash: 'A9993E364706816ABA3E25717850C26C9CD0D89D' } } },
      json,
    ],
    [
      'a user without state, with a date-only date',
      '/v1/users',
      200,
      { value: [{ id: 'u1', primary_email_addr: 'a@x.example', last_modified_datetime: '2025-01-01' }] },
      json,
    ],
    [
      'permissions_hierarchy beside the permissions',
      '/v1/files/kb-001/permissions',
      200,
      { value: { permissions: [{ type: 'GROUP', id: '*', action: 'VIEW' }], permissions_hierarchy: [], last_modified_datetime: null } },
      json,
    ],
    ['a 403 on a list', '/v1/files', 403, { error: { code: 'FORBIDDEN', message: 'no' } }, json],
    ['a 404 on a list', '/v1/users', 404, { error: { code: 'NOT_FOUND', message: 'not implemented' } }, json],
    ['a 502 EXTERNAL_REST_ERROR', '/v1/groups', 502, { error: { code: 'EXTERNAL_REST_ERROR', message: '503 Server Error' } }, json],
    ['extra fields inside error', '/v1/files/nope', 404, { error: { code: 'NOT_FOUND', message: 'File nope not found.', target: '/v1/files/nope' } }, json],
    ['a 429 without Retry-After', '/v1/files', 429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' } }, json],
    [
      'a download without ETag, Last-Modified or Content-Disposition',
      '/v1/files/kb-001/download',
      200,
      undefined,
      { 'content-type': 'application/pdf', 'content-length': '3', 'checksum-sha256': 'a'.repeat(64) },
    ],
  ];
  it.each(cases)('platform accepts %s', (_what, path, status, body, headers) => {
    expect(seen('platform', path, status, body, headers)).toEqual([]);
  });
  it.each(cases.filter(([what]) => what !== 'a 429 without Retry-After'))('strict flags %s', (_what, path, status, body, headers) => {
    expect(seen('strict', path, status, body, headers)).not.toEqual([]);
  });
  it('a 429 without Retry-After is no contract violation under either (rate-limit.retry-after judges it: warning under platform, failure under strict)', () => {
    expect(seen('strict', '/v1/files', 429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' } })).toEqual([]);
  });
  it("an error code outside the platform's table is a warning under platform and a failure under strict; a missing envelope fails under both", () => {
    expect(seen('platform', '/v1/files', 400, { error: { code: 'INVALID_ARGUMENT', message: 'bad' } })).toEqual(['warn contract.error-envelope error.code']);
    expect(seen('strict', '/v1/files', 400, { error: { code: 'INVALID_ARGUMENT', message: 'bad' } })).toContain('fail contract.error-envelope error.code');
    expect(seen('platform', '/v1/files', 400, { code: 'INVALID_ARGUMENT', message: 'bad' })).toContain('fail contract.error-envelope body');
  });
  it("the platform still requires what its validator requires: @odata.context on the files list, a user's email, a member's type", () => {
    expect(seen('platform', '/v1/files', 200, { value: [] })).toEqual(['fail contract.responses body']);
    expect(seen('platform', '/v1/users', 200, { value: [{ id: 'u1' }] })).toEqual(['fail contract.responses body/value/0']);
    expect(seen('platform', '/v1/groups/g/members', 200, { value: [{ id: 'u1' }] })).toEqual(['fail contract.responses body/value/0']);
  });
});

describe('the README of src/conformance', () => {
  it('lists every check, as the catalog has it', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../src/conformance/README.md'), 'utf8');
    const block = /<!-- checks:start -->\n([\s\S]*?)\n<!-- checks:end -->/.exec(readme)?.[1];
    expect(block).toBe(checkTable());
  });
});
