import { fail, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

/** The expectations file: who must and who must not be able to see given files. */
export function accessChecks(input: CheckInput): Finding[] {
  const expectations = input.expectations;
  if (!expectations) return [];
  const { access, crawl } = input;
  const problems: Finding[] = [];
  let held = 0;
  const urlOf = (fileId: string) =>
    crawl.files.find((f) => f.listing.id === fileId)?.permissions?.url ?? `${crawl.baseUrl}/v1/files/${encodeURIComponent(fileId)}/permissions`;
  for (const e of expectations) {
    const answer = access.whoCanSee(e.file);
    if (!answer) {
      problems.push(fail('access.expectations', `File ${e.file} is not served by the gateway.`, { field: 'file', value: e.file }));
      continue;
    }
    const url = urlOf(e.file);
    for (const email of e.canSee) {
      if (access.canSee(email, e.file)) {
        held++;
        continue;
      }
      const users = access.findUsers(email);
      const why =
        users.length === 0
          ? 'no served user has this email'
          : users.every((u) => !u.active)
            ? `the user is inactive${access.grantFor(email, e.file) ? ' (an entry would grant it)' : ''}`
            : answer.file.status === 'deleted'
              ? 'the file is deleted'
              : 'no access entry reaches this user';
      problems.push(fail('access.expectations', `${email} should see ${e.file} but cannot: ${why}.`, { url, field: 'can_see', value: email }));
    }
    for (const email of e.cannotSee) {
      if (!access.canSee(email, e.file)) {
        held++;
        continue;
      }
      problems.push(
        fail('access.expectations', `${email} must not see ${e.file} but can, through ${access.grantFor(email, e.file) ?? '?'}.`, {
          url,
          field: 'cannot_see',
          value: email,
        }),
      );
    }
  }
  return outcome('access.expectations', problems, `all ${plural(held, 'expectation')} hold`);
}
