/** The project store: projects, the memberships of projects, portfolios and goals, and sections. */
import type { Gid, PrivacySetting, AccessLevel, Project, Membership, Section } from './model-types';
import type { EventRecorder } from './store-events';
import { type StoreIndexes, pull, push, removeItem } from './store-indexes';

export class ProjectStore {
  constructor(
    private readonly indexes: StoreIndexes,
    private readonly recorder: EventRecorder,
  ) {}

  add(input: {
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
    const ix = this.indexes;
    const at = input.createdAt ?? ix.now();
    const project: Project = {
      gid: ix.nextGid('project'),
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
    ix.projects.set(project.gid, project);
    push(ix.projectsByWorkspace, project.workspace, project.gid);
    if (project.team) push(ix.projectsByTeam, project.team, project.gid);
    ix.tasksByProject.set(project.gid, []);
    const parent = project.team ? this.recorder.ref('team', project.team) : this.recorder.ref('workspace', project.workspace);
    this.recorder.record('added', this.recorder.ref('project', project.gid), parent, [project.gid, project.workspace, ...(project.team ? [project.team] : [])]);
    if (project.owner) this.addMembership({ parent: project.gid, member: project.owner, accessLevel: 'admin' });
    return project;
  }

  /** Deletes a project with its memberships; its tasks are the caller's to move first (they may live elsewhere). */
  delete(project: Project): void {
    for (const m of this.memberships(project.gid)) this.removeMembership(m);
    this.indexes.projects.delete(project.gid);
    pull(this.indexes.projectsByWorkspace, project.workspace, project.gid);
    if (project.team) pull(this.indexes.projectsByTeam, project.team, project.gid);
    this.recorder.record('deleted', this.recorder.ref('project', project.gid, project.name), null, [project.gid, project.workspace]);
  }

  /** Applies a change to a project: bumps modified_at and records a `changed` event of `field`. */
  change(project: Project, field: string, apply: () => void, newValue: unknown): void {
    apply();
    project.modifiedAt = this.indexes.now();
    const scopes = [project.gid, project.workspace, ...(project.team ? [project.team] : [])];
    this.recorder.record('changed', this.recorder.ref('project', project.gid), null, scopes, { field, action: 'changed', new_value: newValue });
  }

  /** The memberships of a project, portfolio or goal, in order. */
  memberships(parent: Gid): Membership[] {
    return this.indexes.list(this.indexes.membershipsByParent.get(parent), this.indexes.memberships);
  }

  userMembers(project: Gid): Gid[] {
    return this.memberships(project)
      .filter((m) => m.memberType === 'user')
      .map((m) => m.member);
  }

  findMembership(parent: Gid, member: Gid): Membership | undefined {
    return this.memberships(parent).find((m) => m.member === member);
  }

  /** Adds (or returns the existing) membership of a user or team in a project, portfolio or goal. */
  addMembership(input: { parent: Gid; member: Gid; accessLevel?: AccessLevel }): Membership {
    const existing = this.findMembership(input.parent, input.member);
    if (existing) return existing;
    const ix = this.indexes;
    const parentType = ix.kindOf(input.parent);
    if (parentType !== 'project' && parentType !== 'portfolio' && parentType !== 'goal') throw new Error(`cannot add a member to ${parentType}`);
    const memberType = ix.kindOf(input.member);
    if (memberType !== 'user' && memberType !== 'team') throw new Error(`a member is a user or a team, not ${memberType}`);
    const m: Membership = {
      gid: ix.nextGid('membership'),
      parent: input.parent,
      parentType,
      member: input.member,
      memberType,
      accessLevel: input.accessLevel ?? 'editor',
    };
    ix.memberships.set(m.gid, m);
    push(ix.membershipsByParent, m.parent, m.gid);
    push(ix.membershipsByMember, m.member, m.gid);
    const ref = { gid: m.gid, resource_type: 'membership', resource_subtype: `${parentType}_membership` };
    this.recorder.recordUnder('added', ref, parentType, m.parent);
    return m;
  }

  /** Removes a membership; a user leaving a project also stops following it (followers ⊂ members). */
  removeMembership(m: Membership): void {
    const ix = this.indexes;
    ix.memberships.delete(m.gid);
    pull(ix.membershipsByParent, m.parent, m.gid);
    pull(ix.membershipsByMember, m.member, m.gid);
    if (m.parentType === 'project' && m.memberType === 'user') {
      const project = ix.projects.get(m.parent);
      if (project) removeItem(project.followers, m.member);
    }
    const ref = { gid: m.gid, resource_type: 'membership', resource_subtype: `${m.parentType}_membership` };
    this.recorder.recordUnder('removed', ref, m.parentType, m.parent);
  }

  addSection(input: { project: Gid; name: string; createdAt?: number }): Section {
    const ix = this.indexes;
    const section: Section = { gid: ix.nextGid('section'), project: input.project, name: input.name, createdAt: input.createdAt ?? ix.now() };
    ix.sections.set(section.gid, section);
    push(ix.sectionsByProject, section.project, section.gid);
    ix.tasksBySection.set(section.gid, []);
    this.recorder.recordUnder('added', this.recorder.ref('section', section.gid), 'project', section.project);
    return section;
  }
}
