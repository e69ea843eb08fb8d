import pino from 'pino';
import { addProjectMember, applyChangeRound, deactivateGuest } from '../../src/scenarios/change-round';
import { startHarnessMock } from '../../src/scenarios/harness-mock';

/**
 * The closed loop's granted access: after the change round, an active non-guest member is added to
 * a private project, and must then see tasks of it they could not see before. On a large
 * organization every private project's tasks together reach every member (a task multi-homed in
 * a public project, followers, assignees), so the member is chosen per task, not against the
 * union of the project's audiences.
 */
describe.each([
  ['7', 1200], // `harness --assistant`'s defaults
  ['4', 80], // the organization of the closed-loop test
])('the member added to a private project in the change round (seed %s, %d tasks)', (seed, tasks) => {
  it('is an active non-guest who gains at least two of its tasks', async () => {
    const logger = pino({ level: 'silent' });
    const mock = await startHarnessMock({ seed, tasks, logger, print: () => undefined });
    try {
      const before = await mock.client.visibility('task');
      await applyChangeRound(mock.client, mock.workspace, () => undefined);
      const guest = await deactivateGuest(mock.client, mock.workspace, before, () => undefined);
      const lines: string[] = [];
      const added = await addProjectMember(mock.client, mock.workspace, before, (l) => lines.push(l));
      expect(added.user).not.toBe(guest);
      expect(lines).toEqual([expect.stringContaining(`added user ${added.user} to private project ${added.project}`)]);

      const after = await mock.client.visibility('task');
      const projectTasks = (await mock.client.list<{ gid: string }>(`/projects/${added.project}/tasks?opt_fields=name`)).map((t) => t.gid);
      const gained = projectTasks.filter((t) => !(before.get(t) ?? []).includes(added.user) && (after.get(t) ?? []).includes(added.user));
      expect(gained.length).toBeGreaterThanOrEqual(2);
    } finally {
      await mock.close?.();
    }
  }, 60_000);
});
