import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { idPath, quoteLikePlatformClient } from '../../src/conformance/crawl/raw-id-path';

/** Python `requests` prepares each path as the platform's validator does (one process for all). */
function pythonRequestsPaths(paths: string[]): string[] | undefined {
  const script = 'import json,sys,requests\nprint(json.dumps([requests.Request("GET","http://gw"+p).prepare().path_url for p in json.load(sys.stdin)]))';
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(paths), encoding: 'utf8' });
  if (run.status !== 0) return undefined;
  return JSON.parse(run.stdout) as string[];
}

const hasPythonRequests = pythonRequestsPaths(['/x']) !== undefined;
if (!hasPythonRequests)
  console.warn('raw-id-path: python3 with requests not found; the comparison with the real client is skipped (apt-get install python3-requests)');

const idChar = fc.oneof(
  fc.constantFrom(...'abcXYZ019-._~:/ %+&=?#()[]{}|\\^`"\'<>@!$,;*'.split('')),
  fc.constantFrom('%41', '%2F', '%2f', '%zz', '%4', '..', '.'),
  fc.constantFrom('é', 'Ü', '日', '😀'),
);
const ids = fc.array(idChar, { minLength: 1, maxLength: 16 }).map((parts) => parts.join(''));

describe("raw ids as the platform's tools paste them", () => {
  it('keeps `/` and `:` as they are and escapes only what a URL cannot hold', () => {
    expect(quoteLikePlatformClient('/v1/files/demo:company/expense policy.html')).toBe('/v1/files/demo:company/expense%20policy.html');
    expect(quoteLikePlatformClient('/v1/files/a%41b/c%2Fd')).toBe('/v1/files/aAb/c%2Fd');
    expect(quoteLikePlatformClient('/v1/files/50% off')).toBe('/v1/files/50%25%20off');
    expect(quoteLikePlatformClient('/v1/files/../a/./b')).toBe('/v1/a/b');
    expect(quoteLikePlatformClient('/v1/files/a?b#c')).toBe('/v1/files/a?b');
  });

  it('builds the encoded path the contract knows beside the raw one', () => {
    expect(idPath('/v1/groups/', 'wm:team/1', '/members', true)).toEqual({
      path: '/v1/groups/wm:team/1/members',
      contractPath: '/v1/groups/wm%3Ateam%2F1/members',
    });
    expect(idPath('/v1/files/', 'a b', '', false)).toEqual({ path: '/v1/files/a%20b', contractPath: '/v1/files/a%20b' });
  });

  (hasPythonRequests ? it : it.skip)('sends exactly what Python requests sends, for any id (property)', () => {
    const samples = fc.sample(ids, { numRuns: 400, seed: 20261124 });
    const paths = samples.flatMap((id) => [`/v1/files/${id}`, `/v1/files/${id}/permissions`, `/v1/groups/${id}/members`]);
    const expected = pythonRequestsPaths(paths);
    expect(expected).toBeDefined();
    const mismatches = paths.map((p, i) => [p, quoteLikePlatformClient(p), expected?.[i]]).filter(([, ours, theirs]) => ours !== theirs);
    expect(mismatches).toEqual([]);
  });
});
