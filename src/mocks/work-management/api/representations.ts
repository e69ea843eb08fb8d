/**
 * How records look on the wire. Each resource type declares its compact fields (collections and
 * nested references), its full fields (single-object GETs; "[Opt In]" fields left out) and one
 * getter per field, in the family's file (represent-people, -projects, -tasks, -custom-fields,
 * -portfolios); rendering and `nodeOf` are in render-node.ts. `opt_fields` selects exactly the
 * named paths plus `gid` (reference §1): naming a reference without sub-fields (`assignee`) gives
 * `{gid, resource_type}`; naming sub-fields (`assignee.email`) gives `{gid, email}`.
 */
import type { Attachment, CustomField, CustomFieldSetting, CustomType, EnumOption, Goal, Membership, Portfolio, Project, ProjectPortfolioSetting, ProjectStatus, ProjectTemplate, Section, StatusUpdate, Story, Tag, Task, TaskMembership, Team, TeamMembership, User, UserTaskList, Workspace, WorkspaceMembership } from '../model';
import type { TaskFieldEntry } from '../rules/custom-fields';
import type { Job, OrganizationExport } from '../rules/jobs';
import { makeNode, nodes, type NodeMakers } from './render-node';
import { teamMembershipSpec, teamSpec, userSpec, userTaskListSpec, workspaceMembershipSpec, workspaceSpec } from './represent-people';
import { legacyProjectMembershipSpec, membershipSpec, projectSpec, projectStatusSpec, sectionSpec, statusUpdateSpec } from './represent-projects';
import { attachmentSpec, storySpec, tagSpec, taskMembershipSpec, taskSpec } from './represent-tasks';
import { customFieldSettingSpec, customFieldSpec, customFieldValueSpec, customTypeSpec, enumOptionSpec } from './represent-custom-fields';
import { goalSpec, jobSpec, organizationExportSpec, portfolioSpec, projectPortfolioSettingSpec, projectTemplateSpec } from './represent-portfolios';

export { nodeOf, nodes, render, renderMany, renderOne, type Node, type RenderContext } from './render-node';

const makers: NodeMakers = {
  workspace: (w: Workspace) => makeNode(workspaceSpec, w),
  user: (u: User) => makeNode(userSpec, u),
  workspaceMembership: (m: WorkspaceMembership) => makeNode(workspaceMembershipSpec, m),
  userTaskList: (l: UserTaskList) => makeNode(userTaskListSpec, l),
  team: (t: Team) => makeNode(teamSpec, t),
  teamMembership: (m: TeamMembership) => makeNode(teamMembershipSpec, m),
  project: (p: Project) => makeNode(projectSpec, p),
  membership: (m: Membership) => makeNode(membershipSpec, m),
  legacyProjectMembership: (m: Membership) => makeNode(legacyProjectMembershipSpec, m),
  section: (s: Section) => makeNode(sectionSpec, s),
  task: (t: Task) => makeNode(taskSpec, t),
  taskMembership: (m: TaskMembership) => makeNode(taskMembershipSpec, m),
  customFieldValue: (e: TaskFieldEntry) => makeNode(customFieldValueSpec, e),
  enumOption: (o: EnumOption) => makeNode(enumOptionSpec, o),
  customField: (f: CustomField) => makeNode(customFieldSpec, f),
  customFieldSetting: (s: CustomFieldSetting) => makeNode(customFieldSettingSpec, s),
  customType: (c: CustomType) => makeNode(customTypeSpec, c),
  tag: (t: Tag) => makeNode(tagSpec, t),
  story: (s: Story) => makeNode(storySpec, s),
  attachment: (a: Attachment) => makeNode(attachmentSpec, a),
  statusUpdate: (s: StatusUpdate) => makeNode(statusUpdateSpec, s),
  projectStatus: (s: ProjectStatus) => makeNode(projectStatusSpec, s),
  portfolio: (p: Portfolio) => makeNode(portfolioSpec, p),
  projectPortfolioSetting: (s: ProjectPortfolioSetting) => makeNode(projectPortfolioSettingSpec, s),
  goal: (g: Goal) => makeNode(goalSpec, g),
  job: (j: Job) => makeNode(jobSpec, j),
  organizationExport: (e: OrganizationExport) => makeNode(organizationExportSpec, e),
  projectTemplate: (t: ProjectTemplate) => makeNode(projectTemplateSpec, t),
};

Object.assign(nodes, makers);
