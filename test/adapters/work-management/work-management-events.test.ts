import { planChanges } from '../../../src/adapters/work-management/work-management-events';
import type { WmEvent } from '../../../src/adapters/work-management/work-management-records';

const ev = (action: string, type: string, gid: string, parent?: { type: string; gid: string }, change?: WmEvent['change']): WmEvent => ({
  action,
  resource: { gid, resource_type: type },
  parent: parent ? { gid: parent.gid, resource_type: parent.type } : null,
  ...(change ? { change } : {}),
});

describe('planChanges: from events to what a run reads again or deletes', () => {
  it('re-reads changed, added, moved and undeleted tasks, and deletes deleted ones', () => {
    const plan = planChanges([
      ev('changed', 'task', '1', undefined, { field: 'name', action: 'changed' }),
      ev('added', 'task', '2', { type: 'project', gid: 'p' }),
      ev('removed', 'task', '3', { type: 'project', gid: 'p' }),
      ev('deleted', 'task', '4'),
      ev('changed', 'task', '4'),
      ev('deleted', 'task', '5'),
      ev('undeleted', 'task', '5'),
    ]);
    expect([...plan.reread].sort()).toEqual(['1', '2', '3', '5']);
    expect([...plan.deleted]).toEqual(['4']);
  });

  it('re-reads the parent of a subtask added or removed, and the task of a comment added, edited or deleted', () => {
    const plan = planChanges([
      ev('added', 'task', 's1', { type: 'task', gid: 't1' }),
      ev('changed', 'story', 'c1', { type: 'task', gid: 't2' }, { field: 'text', action: 'changed' }),
      ev('deleted', 'story', 'c2', { type: 'task', gid: 't3' }),
    ]);
    expect([...plan.reread].sort()).toEqual(['s1', 't1', 't2', 't3']);
  });

  it('tracks attachments deleted, and re-lists the attachments of the task or project they belong to', () => {
    const plan = planChanges([ev('deleted', 'attachment', 'a1', { type: 'task', gid: 't1' }), ev('added', 'attachment', 'a2', { type: 'project', gid: 'p1' })]);
    expect([...plan.deletedAttachments]).toEqual(['a1']);
    expect([...plan.reread]).toEqual(['t1']);
    expect([...plan.projectAttachments]).toEqual(['p1']);
  });

  it('renders the tasks of a renamed project again; membership and privacy changes need no task (they change groups)', () => {
    const plan = planChanges([
      ev('changed', 'project', 'p1', undefined, { field: 'name', action: 'changed', new_value: 'New' }),
      ev('changed', 'project', 'p2', undefined, { field: 'privacy_setting', action: 'changed' }),
      ev('added', 'membership', 'm1', { type: 'project', gid: 'p2' }),
      ev('changed', 'workspace_membership', 'w1', undefined, { field: 'is_active', action: 'changed' }),
    ]);
    expect([...plan.renamedProjects]).toEqual(['p1']);
    expect(plan.reread.size + plan.deleted.size).toBe(0);
  });
});
