import type { AccessExpectation } from '../access/access-expectations';
import type { Profile } from '../conformance-profile';
import type { RecordedRun } from '../crawl/crawl-record';
import type { EffectiveAccess } from '../access/effective-access';
import { pass, type Finding } from '../finding';

/** What every check sees: the recorded run, the access it implies, and the expectations file. */
export interface CheckInput extends RecordedRun {
  access: EffectiveAccess;
  /** The contract the run holds the gateway to; checks whose rule differs by profile read it. */
  profile: Profile;
  expectations?: AccessExpectation[];
}

/** The problems found, or one pass finding saying what was checked. */
export function outcome(check: string, problems: Finding[], passMessage: string): Finding[] {
  return problems.length ? problems : [pass(check, passMessage)];
}

export const MIB = 1024 * 1024;

export const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
