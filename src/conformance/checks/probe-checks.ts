import { pass, type Finding } from '../finding';
import type { CheckInput } from './check-input';
import { judgeProbe } from './probe-judgement';

const PASS_MESSAGES: Record<string, string> = {
  'auth.missing-key': 'every endpoint answers 401 AUTHENTICATION_FAILED without a key',
  'auth.wrong-key': 'every endpoint answers 401 AUTHENTICATION_FAILED to a wrong key, Bearer or bare',
  'auth.header-forms': 'the key is accepted both as "Bearer <key>" and bare',
  'robustness.malformed-top': 'malformed $top values get a 4xx envelope',
  'robustness.query-options': 'malformed options are refused with a 4xx or ignored, unknown options ignored',
  'robustness.tampered-skiptoken': 'tampered cursors get a 4xx envelope',
  'robustness.unknown-id': 'unknown file and group ids get a 4xx envelope',
  'robustness.long-id': 'over-long ids get a 4xx envelope',
  'robustness.path-traversal': 'path-traversal ids get a 4xx envelope and leak nothing',
  'robustness.unknown-route': 'an unknown route gets a 4xx envelope',
};

/** Auth and robustness checks: the verdicts of the probes, one finding per bad answer. */
export function probeChecks(input: CheckInput): Finding[] {
  const out: Finding[] = [];
  for (const [check, message] of Object.entries(PASS_MESSAGES)) {
    const probes = input.probes.filter((p) => p.check === check);
    if (probes.length === 0) continue;
    const problems = probes.map(judgeProbe).filter((f): f is Finding => f !== undefined);
    out.push(...(problems.length ? problems : [pass(check, `${probes.length} probes: ${message}.`)]));
  }
  return out;
}
