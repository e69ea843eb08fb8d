/** The store's people builders: workspaces, users, workspace memberships, teams and team memberships (events recorded once recording is on). */
import type { Gid, PlanTier, AddOn, Workspace, User, WorkspaceMembership, UserTaskList, TeamVisibility, Team, TeamMembership } from './model-types';
import { StoreBase, pull, push } from './store-base';

export class PeopleStore extends StoreBase {
  /** An organization is on the top tier unless told otherwise; a plain workspace is free. */
  addWorkspace(input: { name: string; isOrganization: boolean; emailDomains?: string[]; tier?: PlanTier; addOns?: AddOn[] }): Workspace {
    const ws: Workspace = {
      gid: this.nextGid('workspace'),
      name: input.name,
      isOrganization: input.isOrganization,
      emailDomains: input.emailDomains ?? [],
      tier: input.tier ?? (input.isOrganization ? 'enterprise_plus' : 'free'),
      addOns: [...(input.addOns ?? [])],
    };
    this.workspaces.set(ws.gid, ws);
    return ws;
  }

  addUser(input: { name: string; email: string; isServiceAccount?: boolean }): User {
    const user: User = { gid: this.nextGid('user'), name: input.name, email: input.email, isServiceAccount: input.isServiceAccount ?? false };
    this.users.set(user.gid, user);
    this.usersByEmail.set(user.email.toLowerCase(), user.gid);
    return user;
  }

  addWorkspaceMembership(input: { user: Gid; workspace: Gid; isActive?: boolean; isGuest?: boolean; isAdmin?: boolean; createdAt?: number }): WorkspaceMembership {
    const existing = this.workspaceMembership(input.user, input.workspace);
    if (existing) return existing;
    const list: UserTaskList = { gid: this.nextGid('user_task_list'), owner: input.user, workspace: input.workspace };
    this.userTaskLists.set(list.gid, list);
    const m: WorkspaceMembership = {
      gid: this.nextGid('workspace_membership'),
      user: input.user,
      workspace: input.workspace,
      isActive: input.isActive ?? true,
      isGuest: input.isGuest ?? false,
      isAdmin: input.isAdmin ?? false,
      createdAt: input.createdAt ?? this.now(),
      userTaskList: list.gid,
    };
    this.workspaceMemberships.set(m.gid, m);
    push(this.workspaceMembershipsByWorkspace, m.workspace, m.gid);
    push(this.workspaceMembershipsByUser, m.user, m.gid);
    this.record('added', this.ref('workspace_membership', m.gid), this.ref('workspace', m.workspace), [m.workspace]);
    return m;
  }

  setWorkspaceMembershipActive(membership: WorkspaceMembership, isActive: boolean): void {
    if (membership.isActive === isActive) return;
    membership.isActive = isActive;
    this.record('changed', this.ref('workspace_membership', membership.gid), null, [membership.workspace], {
      field: 'is_active',
      action: 'changed',
      new_value: isActive,
    });
  }

  addTeam(input: { workspace: Gid; name: string; visibility?: TeamVisibility; description?: string }): Team {
    const team: Team = { gid: this.nextGid('team'), workspace: input.workspace, name: input.name, visibility: input.visibility ?? 'public', description: input.description ?? '' };
    this.teams.set(team.gid, team);
    push(this.teamsByWorkspace, team.workspace, team.gid);
    this.record('added', this.ref('team', team.gid), this.ref('workspace', team.workspace), [team.workspace]);
    return team;
  }

  addTeamMembership(input: { team: Gid; user: Gid; isGuest?: boolean; isLimitedAccess?: boolean; isAdmin?: boolean }): TeamMembership {
    const existing = this.list(this.teamMembershipsByTeam.get(input.team), this.teamMemberships).find((m) => m.user === input.user);
    if (existing) return existing;
    const m: TeamMembership = {
      gid: this.nextGid('team_membership'),
      team: input.team,
      user: input.user,
      isGuest: input.isGuest ?? false,
      isLimitedAccess: input.isLimitedAccess ?? false,
      isAdmin: input.isAdmin ?? false,
    };
    this.teamMemberships.set(m.gid, m);
    push(this.teamMembershipsByTeam, m.team, m.gid);
    push(this.teamMembershipsByUser, m.user, m.gid);
    const team = this.teams.get(m.team);
    this.record('added', this.ref('team_membership', m.gid), this.ref('team', m.team), [m.team, team?.workspace ?? '']);
    return m;
  }

  removeTeamMembership(m: TeamMembership): void {
    this.teamMemberships.delete(m.gid);
    pull(this.teamMembershipsByTeam, m.team, m.gid);
    pull(this.teamMembershipsByUser, m.user, m.gid);
    const team = this.teams.get(m.team);
    this.record('removed', this.ref('team_membership', m.gid, `${this.users.get(m.user)?.name ?? ''}`), this.ref('team', m.team), [m.team, team?.workspace ?? '']);
  }
}
