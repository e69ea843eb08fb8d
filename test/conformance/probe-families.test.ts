import { PROBE_FAMILIES, type Probe, type ProbeAim } from '../../src/conformance/crawl/probe-families';

const aim = (patch: Partial<ProbeAim> = {}): ProbeAim => ({
  random: 'r4nd0m',
  unknown: 'conformance-probe-unknown-r4nd0m',
  fileId: 'file 1',
  binaryId: 'bin/2',
  groupId: 'g1',
  nextLinks: [],
  key: 'the-key',
  authForm: 'bearer',
  profile: 'strict',
  ...patch,
});

const probes = (a: ProbeAim): Probe[] => PROBE_FAMILIES.flatMap((f) => f.probes(a));
const ofCheck = (a: ProbeAim, check: string) => probes(a).filter((p) => p.check === check);

describe('the probe families', () => {
  it('asks every endpoint without a key and with two wrong ones, aiming at the crawled ids (encoded)', () => {
    const auth = probes(aim()).filter((p) => p.check.startsWith('auth.') && p.check !== 'auth.header-forms');
    expect(auth).toHaveLength(8 * 3);
    expect(new Set(auth.map((p) => p.path))).toEqual(
      new Set([
        '/v1/files',
        '/v1/files/file%201',
        '/v1/files/bin%2F2/download',
        '/v1/files/file%201/permissions',
        '/v1/files/permissions/metadata',
        '/v1/users',
        '/v1/groups',
        '/v1/groups/g1/members',
      ]),
    );
    expect(auth.filter((p) => p.download).map((p) => p.path)).toEqual(Array(3).fill('/v1/files/bin%2F2/download'));
    expect(auth.filter((p) => p.auth !== 'none').map((p) => typeof p.auth === 'object' && p.auth.header.includes('conformance-wrong-key-r4nd0m'))).toEqual(
      Array(8 * 2).fill(true),
    );
  });

  it('sends the Authorization form the crawl did not use', () => {
    expect(ofCheck(aim({ authForm: 'bearer' }), 'auth.header-forms').map((p) => p.auth)).toEqual(Array(3).fill({ header: 'the-key' }));
    expect(ofCheck(aim({ authForm: 'bare' }), 'auth.header-forms').map((p) => p.auth)).toEqual(Array(3).fill({ header: 'Bearer the-key' }));
  });

  it('judges a malformed $top by the profile, following only the files pages', () => {
    const strict = ofCheck(aim({ profile: 'strict' }), 'robustness.malformed-top');
    const platform = ofCheck(aim({ profile: 'platform' }), 'robustness.malformed-top');
    expect(strict.map((p) => p.expect)).toEqual(Array(8).fill('4xx'));
    expect(platform.map((p) => p.expect)).toEqual(Array(8).fill('2xx-or-4xx'));
    expect(strict.filter((p) => p.follow).map((p) => p.path)).toEqual(['/v1/files?$top=abc', '/v1/files?$top=-1', '/v1/files?$top=0', '/v1/files?$top=1.5']);
  });

  it('tampers with a served $skiptoken link, or lets a gateway without one ignore a stray token', () => {
    const link = 'http://gw/v1/files?$top=5&$skiptoken=eyJvIjo1fQ.c2lnbmF0dXJl';
    const served = ofCheck(aim({ nextLinks: ['http://gw/v1/files?$skip=5', link] }), 'robustness.tampered-skiptoken');
    expect(served.filter((p) => p.url !== undefined)).toHaveLength(2);
    expect(served.map((p) => p.expect)).toEqual(Array(3).fill('4xx'));
    const none = ofCheck(aim({ nextLinks: ['http://gw/v1/files?$skip=5'] }), 'robustness.tampered-skiptoken');
    expect(none).toEqual([expect.objectContaining({ path: '/v1/files?$skiptoken=not-a-real-token', expect: '2xx-or-4xx' })]);
  });

  it('accepts a 200 access or member list of an unknown id under platform, warns under strict', () => {
    const lists = (a: ProbeAim) => ofCheck(a, 'robustness.unknown-id').filter((p) => /permissions|members/.test(p.path));
    expect(lists(aim({ profile: 'platform' })).map((p) => [p.expect, p.otherwise])).toEqual([
      ['2xx-or-4xx', 'fail'],
      ['2xx-or-4xx', 'fail'],
    ]);
    expect(lists(aim({ profile: 'strict' })).map((p) => [p.expect, p.otherwise])).toEqual([
      ['4xx', 'warn'],
      ['4xx', 'warn'],
    ]);
    expect(ofCheck(aim(), 'robustness.unknown-route')).toEqual([expect.objectContaining({ path: '/v1/conformance-probe-unknown-r4nd0m' })]);
  });
});
