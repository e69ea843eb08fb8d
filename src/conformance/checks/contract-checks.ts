import { fail, warn, type Finding } from '../finding';
import { outcome, type CheckInput } from './check-input';

/** Contract and error-envelope violations seen on any response of the run. */
export function contractChecks(input: CheckInput): Finding[] {
  const out: Finding[] = [];
  for (const check of ['contract.responses', 'contract.error-envelope'] as const) {
    const problems = input.violations
      .filter((v) => v.check === check)
      .map((v) => (v.severity === 'warn' ? warn : fail)(check, v.message, { url: v.url, field: v.field ?? 'status', value: v.status }));
    if (problems.length && input.violationsDropped) {
      problems.push(fail(check, `${input.violationsDropped} more violations were not stored.`));
    }
    out.push(
      ...outcome(
        check,
        problems,
        check === 'contract.responses'
          ? `all ${input.stats.requests.toLocaleString('en-US')} responses match the contract`
          : 'every error answer is the envelope with the right code',
      ),
    );
  }
  return out;
}
