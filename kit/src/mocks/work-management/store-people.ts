/** The people store: workspaces, users, workspace memberships (with their user task lists), teams and team memberships. */
import type { Gid, PlanTier, AddOn, Workspace, User, WorkspaceMembership, UserTaskList, TeamVisibility, Team, TeamMembership } from './model-types';
import type { EventRecorder } from './store-events';
import { type StoreIndexes, pull, push } from './store-indexes';

export class PeopleStore {
  constructor(
    private readonly indexes: StoreIndexes,
    private readonly recorder: EventRecorder,
  ) {}

  /** An organization is on the top tier unless told otherwise; a plain workspace is free. */
  addWorkspace(input: { name: string; isOrganization: boolean; emailDomains?: string[]; tier?: PlanTier; addOns?: AddOn[] }): Workspace {
    const ws: Workspace = {
      gid: this.indexes.nextGid('workspace'),
      name: input.name,
      isOrganization: input.isOrganization,
      emailDomains: input.emailDomains ?? [],
      tier: input.tier ?? (input.isOrganization ? 'enterprise_plus' : 'free'),
      addOns: [...(input.addOns ?? [])],
    };
    this.indexes.workspaces.set(ws.gid, ws);
    return ws;
  }

  addUser(input: { name: string; email: string; isServiceAccount?: boolean }): User {
    const user: User = { gid: this.indexes.nextGid('user'), name: input.name, email: input.email, isServiceAccount: input.isServiceAccount ?? false };
    this.indexes.users.set(user.gid, user);
    this.indexes.usersByEmail.set(user.email.toLowerCase(), user.gid);
    return user;
  }

  workspaceMembership(user: Gid, workspace: Gid): WorkspaceMembership | undefined {
    for (const id of this.indexes.workspaceMembershipsByUser.get(user) ?? []) {
      const m = this.indexes.workspaceMemberships.get(id);
      if (m && m.workspace === workspace) return m;
    }
    return undefined;
  }

  userTaskListOf(user: Gid, workspace: Gid): UserTaskList | undefined {
    const m = this.workspaceMembership(user, workspace);
    return m ? this.indexes.userTaskLists.get(m.userTaskList) : undefined;
  }

  addWorkspaceMembership(input: {
    user: Gid;
    workspace: Gid;
    isActive?: boolean;
    isGuest?: boolean;
    isAdmin?: boolean;
    createdAt?: number;
  }): WorkspaceMembership {
    const existing = this.workspaceMembership(input.user, input.workspace);
    if (existing) return existing;
    const ix = this.indexes;
    const list: UserTaskList = { gid: ix.nextGid('user_task_list'), owner: input.user, workspace: input.workspace };
    ix.userTaskLists.set(list.gid, list);
    const m: WorkspaceMembership = {
      gid: ix.nextGid('workspace_membership'),
      user: input.user,
      workspace: input.workspace,
      isActive: input.isActive ?? true,
      isGuest: input.isGuest ?? false,
      isAdmin: input.isAdmin ?? false,
      createdAt: input.createdAt ?? ix.now(),
      userTaskList: list.gid,
    };
    ix.workspaceMemberships.set(m.gid, m);
    push(ix.workspaceMembershipsByWorkspace, m.workspace, m.gid);
    push(ix.workspaceMembershipsByUser, m.user, m.gid);
    this.recorder.record('added', this.recorder.ref('workspace_membership', m.gid), this.recorder.ref('workspace', m.workspace), [m.workspace]);
    return m;
  }

  setWorkspaceMembershipActive(membership: WorkspaceMembership, isActive: boolean): void {
    if (membership.isActive === isActive) return;
    membership.isActive = isActive;
    this.recorder.record('changed', this.recorder.ref('workspace_membership', membership.gid), null, [membership.workspace], {
      field: 'is_active',
      action: 'changed',
      new_value: isActive,
    });
  }

  addTeam(input: { workspace: Gid; name: string; visibility?: TeamVisibility; description?: string }): Team {
    const gid = this.indexes.nextGid('team');
    const team: Team = { gid, workspace: input.workspace, name: input.name, visibility: input.visibility ?? 'public', description: input.description ?? '' };
    this.indexes.teams.set(team.gid, team);
    push(this.indexes.teamsByWorkspace, team.workspace, team.gid);
    this.recorder.record('added', this.recorder.ref('team', team.gid), this.recorder.ref('workspace', team.workspace), [team.workspace]);
    return team;
  }

  addTeamMembership(input: { team: Gid; user: Gid; isGuest?: boolean; isLimitedAccess?: boolean; isAdmin?: boolean }): TeamMembership {
    const ix = this.indexes;
    const existing = ix.list(ix.teamMembershipsByTeam.get(input.team), ix.teamMemberships).find((m) => m.user === input.user);
    if (existing) return existing;
    const m: TeamMembership = {
      gid: ix.nextGid('team_membership'),
      team: input.team,
      user: input.user,
      isGuest: input.isGuest ?? false,
      isLimitedAccess: input.isLimitedAccess ?? false,
      isAdmin: input.isAdmin ?? false,
    };
    ix.teamMemberships.set(m.gid, m);
    push(ix.teamMembershipsByTeam, m.team, m.gid);
    push(ix.teamMembershipsByUser, m.user, m.gid);
    const team = ix.teams.get(m.team);
    this.recorder.record('added', this.recorder.ref('team_membership', m.gid), this.recorder.ref('team', m.team), [m.team, team?.workspace ?? '']);
    return m;
  }

  removeTeamMembership(m: TeamMembership): void {
    const ix = this.indexes;
    ix.teamMemberships.delete(m.gid);
    pull(ix.teamMembershipsByTeam, m.team, m.gid);
    pull(ix.teamMembershipsByUser, m.user, m.gid);
    const team = ix.teams.get(m.team);
    const ref = this.recorder.ref('team_membership', m.gid, `${ix.users.get(m.user)?.name ?? ''}`);
    this.recorder.record('removed', ref, this.recorder.ref('team', m.team), [m.team, team?.workspace ?? '']);
  }
}
