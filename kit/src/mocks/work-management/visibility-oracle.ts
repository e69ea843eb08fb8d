/**
 * The visibility oracle: from the mock's own model, which users may see each task, attachment,
 * story and project. It is written from the rules of the reference (§6), independently of any
 * adapter's mapping, so an end-to-end run can compare the gateway's access lists with it.
 *
 * Rules, in order:
 * 1. Only users with an active membership of the object's workspace see anything (inactive
 *    users are excluded everywhere; the service account is not a member and is not listed).
 * 2. Project audience A(P): the project's user members (any access level); the members of each
 *    team that has a project membership; for `private_to_team` and `public_to_workspace`, the
 *    members of the project's team (guest team members included: being on the team is how a
 *    guest reaches its projects); for `public_to_workspace`, also every active non-guest member
 *    of the workspace (guests are not organization members); with a project portfolio setting that inherits access control,
 *    the portfolio's user members and the members of its member teams. Team membership with
 *    `is_limited_access` grants nothing through the team.
 * 3. Task audience: the union of A(P) over the task's projects (multi-homed tasks are visible
 *    through any of them), plus its followers and its assignee. A task in no project is visible
 *    to its followers and assignee only. A subtask is judged on its own projects, followers and
 *    assignee (not its parent's), unless `subtasksInheritParent` is set.
 * 4. Stories and attachments carry their task's audience; a project attachment carries A(P).
 * 5. Deleted or unknown objects have no audience (the oracle answers undefined).
 */
import type { Gid, Project, Task, WorkManagementStore } from './model';

export type OracleObjectType = 'task' | 'attachment' | 'story' | 'project';
export const ORACLE_TYPES: readonly OracleObjectType[] = ['task', 'attachment', 'story', 'project'];

export interface OracleOptions {
  /** Whether a subtask is also visible to everyone who sees its parent (unverified; default off). */
  subtasksInheritParent?: boolean;
}

export interface ObjectVisibility {
  type: OracleObjectType;
  gid: Gid;
  visibleTo: Gid[];
}

/** Per user, why they see the object (for diagnosing a mismatch). */
export type Reasons = Map<Gid, string[]>;

export interface VisibilityOracle {
  /** Sorted gids of the users who may see the object; undefined when it does not exist. */
  visibleTo(type: OracleObjectType, gid: Gid): Gid[] | undefined;
  canSee(user: Gid, type: OracleObjectType, gid: Gid): boolean;
  explain(type: OracleObjectType, gid: Gid): Reasons | undefined;
  /** Every object of a type with its audience, in a stable order (lazily, one at a time). */
  all(type: OracleObjectType): Iterable<ObjectVisibility>;
  /** Gids of every object of a type, in the order `all` yields them. */
  gids(type: OracleObjectType): Gid[];
  /** The audiences of several objects at once (project audiences computed once). */
  many(type: OracleObjectType, gids: readonly Gid[]): ObjectVisibility[];
  /** Active members of a workspace (the users who can see anything at all). */
  activeUsers(workspace: Gid): Gid[];
}

export function createVisibilityOracle(store: WorkManagementStore, options: OracleOptions = {}): VisibilityOracle {
  const rules: AudienceRules = { store, options };
  const sorted = (reasons: Reasons): Gid[] => [...reasons.keys()].sort(compareGids);
  const gids = (type: OracleObjectType): Gid[] => objectGids(store, type);
  return {
    visibleTo: (type, gid) => {
      const reasons = audienceOf(rules, type, gid);
      return reasons ? sorted(reasons) : undefined;
    },
    canSee: (user, type, gid) => audienceOf(rules, type, gid)?.has(user) ?? false,
    explain: (type, gid) => audienceOf(rules, type, gid),
    gids,
    many: (type, list) => {
      const cache = new Map<Gid, Reasons>();
      const out: ObjectVisibility[] = [];
      for (const gid of list) {
        const reasons = audienceOf(rules, type, gid, cache);
        if (reasons) out.push({ type, gid, visibleTo: sorted(reasons) });
      }
      return out;
    },
    *all(type) {
      // Project audiences are shared by many tasks: compute each once per walk.
      const cache = new Map<Gid, Reasons>();
      for (const gid of gids(type)) {
        const reasons = audienceOf(rules, type, gid, cache);
        if (reasons) yield { type, gid, visibleTo: sorted(reasons) };
      }
    },
    activeUsers: (workspace) =>
      store.indexes
        .list(store.indexes.workspaceMembershipsByWorkspace.get(workspace), store.indexes.workspaceMemberships)
        .filter((m) => m.isActive)
        .map((m) => m.user)
        .sort(compareGids),
  };
}

/** What the audience rules read: the mock's model, and whether subtasks inherit their parent's audience. */
interface AudienceRules {
  store: WorkManagementStore;
  options: OracleOptions;
}

/** Who sees an object and why (rules 4 and 5): undefined when it does not exist. `cache` keeps project audiences. */
function audienceOf(rules: AudienceRules, type: OracleObjectType, gid: Gid, cache?: Map<Gid, Reasons>): Reasons | undefined {
  const { store } = rules;
  switch (type) {
    case 'task': {
      const task = store.indexes.tasks.get(gid);
      return task ? taskAudience(rules, task, cache) : undefined;
    }
    case 'story': {
      const story = store.indexes.stories.get(gid);
      const task = story ? store.indexes.tasks.get(story.target) : undefined;
      return task ? taskAudience(rules, task, cache) : undefined;
    }
    case 'attachment': {
      const a = store.indexes.attachments.get(gid);
      if (!a) return undefined;
      if (a.parentType === 'project') {
        const project = store.indexes.projects.get(a.parent);
        return project ? new Map(projectAudience(store, project, cache)) : undefined;
      }
      const task = store.indexes.tasks.get(a.parent);
      return task ? taskAudience(rules, task, cache) : undefined;
    }
    case 'project': {
      const project = store.indexes.projects.get(gid);
      return project ? new Map(projectAudience(store, project, cache)) : undefined;
    }
  }
}

/** Rule 3: the task's projects' audiences, its followers and assignee (and its parent's, when subtasks inherit). */
function taskAudience(rules: AudienceRules, task: Task, cache?: Map<Gid, Reasons>, depth = 0): Reasons {
  const { store, options } = rules;
  const reasons: Reasons = new Map();
  for (const m of task.memberships) {
    const project = store.indexes.projects.get(m.project);
    if (!project) continue;
    for (const [user, why] of projectAudience(store, project, cache)) for (const r of why) addReason(reasons, user, r);
  }
  for (const f of task.followers) addReason(reasons, f, `follower of task ${task.gid}`);
  if (task.assignee) addReason(reasons, task.assignee, `assignee of task ${task.gid}`);
  if (options.subtasksInheritParent && task.parent && depth < 50) {
    const parent = store.indexes.tasks.get(task.parent);
    if (parent)
      for (const [user, why] of taskAudience(rules, parent, cache, depth + 1))
        for (const r of why) addReason(reasons, user, `via parent task ${parent.gid}: ${r}`);
  }
  for (const user of [...reasons.keys()]) if (!isActiveIn(store, user, task.workspace)) reasons.delete(user);
  return reasons;
}

/** Rule 2, A(P): members, member teams, the project's team, the workspace (public projects), inheriting portfolios. */
function projectAudience(store: WorkManagementStore, project: Project, cache?: Map<Gid, Reasons>): Reasons {
  const cached = cache?.get(project.gid);
  if (cached) return cached;
  const reasons: Reasons = new Map();
  for (const m of store.indexes.list(store.indexes.membershipsByParent.get(project.gid), store.indexes.memberships)) {
    if (m.memberType === 'user') addReason(reasons, m.member, `member of project ${project.gid}`);
    else for (const u of teamMembers(store, m.member)) addReason(reasons, u, `member of team ${m.member}, a member of project ${project.gid}`);
  }
  if (project.privacySetting !== 'private' && project.team) {
    // "Team only" and "shared with organization" both include the project's team (guests in it too).
    for (const u of teamMembers(store, project.team))
      addReason(reasons, u, `member of team ${project.team} of ${project.privacySetting} project ${project.gid}`);
  }
  if (project.privacySetting === 'public_to_workspace') {
    for (const wm of store.indexes.list(store.indexes.workspaceMembershipsByWorkspace.get(project.workspace), store.indexes.workspaceMemberships)) {
      if (!wm.isGuest) addReason(reasons, wm.user, `non-guest member of workspace ${project.workspace}; project ${project.gid} is public_to_workspace`);
    }
  }
  for (const s of store.indexes.list(store.indexes.portfolioSettingsByProject.get(project.gid), store.indexes.projectPortfolioSettings)) {
    if (!s.isAccessControlInherited) continue;
    for (const m of store.indexes.list(store.indexes.membershipsByParent.get(s.portfolio), store.indexes.memberships)) {
      if (m.memberType === 'user') addReason(reasons, m.member, `member of portfolio ${s.portfolio} that project ${project.gid} inherits access from`);
      else
        for (const u of teamMembers(store, m.member))
          addReason(reasons, u, `member of team ${m.member} in portfolio ${s.portfolio} that project ${project.gid} inherits access from`);
    }
  }
  for (const user of [...reasons.keys()]) if (!isActiveIn(store, user, project.workspace)) reasons.delete(user);
  cache?.set(project.gid, reasons);
  return reasons;
}

/** Members of a team that the team grants access through (limited-access members excluded). */
function teamMembers(store: WorkManagementStore, team: Gid): Gid[] {
  return store.indexes
    .list(store.indexes.teamMembershipsByTeam.get(team), store.indexes.teamMemberships)
    .filter((m) => !m.isLimitedAccess)
    .map((m) => m.user);
}

/** Rule 1: only active members of the object's workspace see anything. */
function isActiveIn(store: WorkManagementStore, user: Gid, workspace: Gid): boolean {
  return store.people.workspaceMembership(user, workspace)?.isActive === true;
}

function addReason(reasons: Reasons, user: Gid, reason: string): void {
  const list = reasons.get(user);
  if (list) {
    if (!list.includes(reason)) list.push(reason);
  } else reasons.set(user, [reason]);
}

function objectGids(store: WorkManagementStore, type: OracleObjectType): Gid[] {
  switch (type) {
    case 'task':
      return [...store.indexes.tasks.keys()];
    case 'story':
      return [...store.indexes.stories.keys()];
    case 'attachment':
      return [...store.indexes.attachments.keys()];
    case 'project':
      return [...store.indexes.projects.keys()];
  }
}

/** Gids are decimal strings: order them numerically. */
export function compareGids(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
