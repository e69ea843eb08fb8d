/**
 * The store's event recorder: turns the resource stores' changes into events (rules/events.ts)
 * and audit log entries, once recording is on. It reads the shared indexes to name and scope
 * what changed; every resource store records through it.
 */
import type { Gid, ResourceType, Task } from './model-types';
import type { EventAction, EventChange, EventRef } from './rules/events';
import type { StoreIndexes } from './store-indexes';

export class EventRecorder {
  /** Events are recorded only once the initial organization is built. */
  recording = false;

  constructor(private readonly indexes: StoreIndexes) {}

  /** Runs `build` with event recording off (initial data is not news). */
  silently<T>(build: () => T): T {
    const was = this.recording;
    this.recording = false;
    try {
      return build();
    } finally {
      this.recording = was;
    }
  }

  /** A compact reference `{gid, resource_type, name}` as events carry them. */
  ref(type: ResourceType, gid: Gid, name?: string, subtype?: string): EventRef {
    const resolved = name ?? this.nameOf(gid);
    return { gid, resource_type: type, ...(resolved !== undefined ? { name: resolved } : {}), ...(subtype ? { resource_subtype: subtype } : {}) };
  }

  taskRef(task: Task): EventRef {
    return { gid: task.gid, resource_type: 'task', name: task.name, resource_subtype: task.resourceSubtype };
  }

  nameOf(gid: Gid): string | undefined {
    const ix = this.indexes;
    return (
      ix.users.get(gid)?.name ??
      ix.projects.get(gid)?.name ??
      ix.teams.get(gid)?.name ??
      ix.workspaces.get(gid)?.name ??
      ix.tasks.get(gid)?.name ??
      ix.portfolios.get(gid)?.name ??
      ix.goals.get(gid)?.name ??
      ix.customFields.get(gid)?.name ??
      ix.sections.get(gid)?.name ??
      ix.projectTemplates.get(gid)?.name
    );
  }

  /**
   * Where a task event is visible: the task, its ancestors, every project of any of them (events
   * bubble up from subtasks to the parent's projects) and the workspace.
   */
  taskScopes(task: Task): Gid[] {
    const scopes = new Set<Gid>();
    for (const t of this.indexes.ancestry(task)) {
      scopes.add(t.gid);
      for (const m of t.memberships) scopes.add(m.project);
    }
    scopes.add(task.workspace);
    return [...scopes];
  }

  parentScopes(parent: Gid): Gid[] {
    const project = this.indexes.projects.get(parent);
    if (project) return [project.gid, project.workspace, ...(project.team ? [project.team] : [])];
    const portfolio = this.indexes.portfolios.get(parent);
    if (portfolio) return [portfolio.gid, portfolio.workspace];
    const goal = this.indexes.goals.get(parent);
    if (goal) return [goal.gid, goal.workspace];
    return [parent];
  }

  /** Records a change of a record that belongs to a project, portfolio or goal (`parent`), visible where the parent is. */
  recordUnder(action: EventAction, resource: EventRef, parentType: ResourceType, parent: Gid): void {
    this.record(action, resource, this.ref(parentType, parent), this.parentScopes(parent));
  }

  record(action: EventAction, resource: EventRef, parent: EventRef | null, scopes: Gid[], change?: EventChange, user: Gid | null = null): void {
    if (!this.recording) return;
    this.indexes.audit.observe(this.indexes, { action, resource, parent, change, user, scopes });
    this.indexes.events.append({
      action,
      resource,
      parent,
      change,
      user: user ? this.ref('user', user) : null,
      scopes: scopes.filter(Boolean),
    });
  }
}
