/**
 * How records look on the wire. Each resource type declares its compact fields (collections and
 * nested references), its full fields (single-object GETs; "[Opt In]" fields left out) and one
 * getter per field, in the family's file (represent-people, -projects, -tasks, -custom-fields,
 * -portfolios); nodes, rendering and `nodeOf` are in render-node.ts. The registry below is the one
 * place that maps each node type to its spec: the renderer looks specs up in it through the render
 * context, so specs name each other by type and import no other family. `opt_fields` selects
 * exactly the named paths plus `gid` (reference §1): naming a reference without sub-fields
 * (`assignee`) gives `{gid, resource_type}`; naming sub-fields (`assignee.email`) gives `{gid, email}`.
 */
import type { MockContext } from '../mock-context';
import type { ApiRequest } from './api-request';
import { render, type Node, type SpecRegistry } from './render-node';
import { teamMembershipSpec, teamSpec, userSpec, userTaskListSpec, workspaceMembershipSpec, workspaceSpec } from './represent-people';
import { legacyProjectMembershipSpec, membershipSpec, projectSpec, projectStatusSpec, sectionSpec, statusUpdateSpec } from './represent-projects';
import { attachmentSpec, storySpec, tagSpec, taskMembershipSpec, taskSpec } from './represent-tasks';
import { customFieldSettingSpec, customFieldSpec, customFieldValueSpec, customTypeSpec, enumOptionSpec } from './represent-custom-fields';
import {
  exportFileSpec,
  goalSpec,
  jobSpec,
  organizationExportSpec,
  portfolioSpec,
  projectPortfolioSettingSpec,
  projectTemplateSpec,
} from './represent-portfolios';
import {
  accessRequestSpec,
  agentSpec,
  budgetSpec,
  goalRelationshipSpec,
  portfolioMembershipSpec,
  projectBriefSpec,
  rateSpec,
  taskTemplateSpec,
  timePeriodSpec,
  timeTrackingCategorySpec,
  timeTrackingEntrySpec,
  timesheetApprovalStatusSpec,
} from './represent-tracking';

export { node, nodeMaker, nodeOf, type Node, type NodeType, type NodeTypes, type RenderContext } from './render-node';

export const SPECS: SpecRegistry = {
  workspace: workspaceSpec,
  user: userSpec,
  workspaceMembership: workspaceMembershipSpec,
  userTaskList: userTaskListSpec,
  team: teamSpec,
  teamMembership: teamMembershipSpec,
  project: projectSpec,
  membership: membershipSpec,
  legacyProjectMembership: legacyProjectMembershipSpec,
  section: sectionSpec,
  task: taskSpec,
  taskMembership: taskMembershipSpec,
  customFieldValue: customFieldValueSpec,
  enumOption: enumOptionSpec,
  customField: customFieldSpec,
  customFieldSetting: customFieldSettingSpec,
  customType: customTypeSpec,
  tag: tagSpec,
  story: storySpec,
  attachment: attachmentSpec,
  statusUpdate: statusUpdateSpec,
  projectStatus: projectStatusSpec,
  portfolio: portfolioSpec,
  projectPortfolioSetting: projectPortfolioSettingSpec,
  goal: goalSpec,
  job: jobSpec,
  organizationExport: organizationExportSpec,
  projectTemplate: projectTemplateSpec,
  exportFile: exportFileSpec,
  accessRequest: accessRequestSpec,
  agent: agentSpec,
  budget: budgetSpec,
  goalRelationship: goalRelationshipSpec,
  portfolioMembership: portfolioMembershipSpec,
  projectBrief: projectBriefSpec,
  rate: rateSpec,
  taskTemplate: taskTemplateSpec,
  timePeriod: timePeriodSpec,
  timeTrackingCategory: timeTrackingCategorySpec,
  timeTrackingEntry: timeTrackingEntrySpec,
  timesheetApprovalStatus: timesheetApprovalStatusSpec,
};

/** One object as a single-object GET shows it (full, or per opt_fields). */
export function renderOne(req: ApiRequest, ctx: MockContext, value: Node): unknown {
  return render(value, req.fields ?? 'full', { ctx, origin: req.origin, specs: SPECS });
}

/** A list as a collection GET shows it (compact, or per opt_fields). */
export function renderMany(req: ApiRequest, ctx: MockContext, values: Node[]): unknown[] {
  const rc = { ctx, origin: req.origin, specs: SPECS };
  return values.map((v) => render(v, req.fields ?? 'compact', rc));
}
