/** The store's project builders: projects, their memberships and sections (events recorded once recording is on). */
import type { Gid, PrivacySetting, AccessLevel, Project, Membership, Section } from './model-types';
import { pull, push, removeItem } from './store-base';
import { PeopleStore } from './store-people';

export class ProjectStore extends PeopleStore {
  addProject(input: {
    workspace: Gid;
    team: Gid | null;
    name: string;
    privacySetting?: PrivacySetting;
    defaultAccessLevel?: AccessLevel;
    archived?: boolean;
    owner?: Gid | null;
    notes?: string | null;
    color?: string;
    createdAt?: number;
    customType?: Gid | null;
  }): Project {
    const at = input.createdAt ?? this.now();
    const project: Project = {
      gid: this.nextGid('project'),
      workspace: input.workspace,
      team: input.team,
      name: input.name,
      notes: input.notes ?? null,
      privacySetting: input.privacySetting ?? 'public_to_workspace',
      defaultAccessLevel: input.defaultAccessLevel ?? 'editor',
      archived: input.archived ?? false,
      completed: false,
      owner: input.owner ?? null,
      followers: [],
      color: input.color ?? 'light-green',
      createdAt: at,
      modifiedAt: at,
      dueOn: null,
      startOn: null,
      customType: input.customType ?? null,
      customFieldValues: [],
    };
    this.projects.set(project.gid, project);
    push(this.projectsByWorkspace, project.workspace, project.gid);
    if (project.team) push(this.projectsByTeam, project.team, project.gid);
    this.tasksByProject.set(project.gid, []);
    this.record('added', this.ref('project', project.gid), project.team ? this.ref('team', project.team) : this.ref('workspace', project.workspace), [project.gid, project.workspace, ...(project.team ? [project.team] : [])]);
    if (project.owner) this.addMembership({ parent: project.gid, member: project.owner, accessLevel: 'admin' });
    return project;
  }

  changeProject(project: Project, field: string, apply: () => void, newValue: unknown): void {
    apply();
    project.modifiedAt = this.now();
    this.record('changed', this.ref('project', project.gid), null, [project.gid, project.workspace, ...(project.team ? [project.team] : [])], { field, action: 'changed', new_value: newValue });
  }

  /** Adds (or returns the existing) membership of a user or team in a project, portfolio or goal. */
  addMembership(input: { parent: Gid; member: Gid; accessLevel?: AccessLevel }): Membership {
    const existing = this.findMembership(input.parent, input.member);
    if (existing) return existing;
    const parentType = this.kindOf(input.parent);
    if (parentType !== 'project' && parentType !== 'portfolio' && parentType !== 'goal') throw new Error(`cannot add a member to ${parentType}`);
    const memberType = this.kindOf(input.member);
    if (memberType !== 'user' && memberType !== 'team') throw new Error(`a member is a user or a team, not ${memberType}`);
    const m: Membership = {
      gid: this.nextGid('membership'),
      parent: input.parent,
      parentType,
      member: input.member,
      memberType,
      accessLevel: input.accessLevel ?? 'editor',
    };
    this.memberships.set(m.gid, m);
    push(this.membershipsByParent, m.parent, m.gid);
    push(this.membershipsByMember, m.member, m.gid);
    this.record('added', { gid: m.gid, resource_type: 'membership', resource_subtype: `${parentType}_membership` }, this.ref(parentType, m.parent), this.parentScopes(m.parent));
    return m;
  }

  /** Removes a membership; a user leaving a project also stops following it (followers ⊂ members). */
  removeMembership(m: Membership): void {
    this.memberships.delete(m.gid);
    pull(this.membershipsByParent, m.parent, m.gid);
    pull(this.membershipsByMember, m.member, m.gid);
    if (m.parentType === 'project' && m.memberType === 'user') {
      const project = this.projects.get(m.parent);
      if (project) removeItem(project.followers, m.member);
    }
    this.record('removed', { gid: m.gid, resource_type: 'membership', resource_subtype: `${m.parentType}_membership` }, this.ref(m.parentType, m.parent), this.parentScopes(m.parent));
  }

  addSection(input: { project: Gid; name: string; createdAt?: number }): Section {
    const section: Section = { gid: this.nextGid('section'), project: input.project, name: input.name, createdAt: input.createdAt ?? this.now() };
    this.sections.set(section.gid, section);
    push(this.sectionsByProject, section.project, section.gid);
    this.tasksBySection.set(section.gid, []);
    this.record('added', this.ref('section', section.gid), this.ref('project', section.project), this.parentScopes(section.project));
    return section;
  }
}
