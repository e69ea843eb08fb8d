/**
 * Custom fields and their settings, enum options, custom types, status updates, portfolios and
 * goals (reference §5.12, 5.14–5.16).
 */
import { ApiError, badRequest, cannotWrite, missingInput } from '../api/api-error';
import { node } from '../api/representations';
import { bodyData, queryTime, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { CustomField, EnumOption, Goal, Portfolio, StatusUpdate } from '../model';
import { addCustomFieldSetting, createCustomField, removeCustomFieldSetting } from '../rules/custom-fields';
import { addPortfolioItem, removePortfolioItem } from '../rules/projects';
import { createStatusUpdate } from '../rules/status-updates';
import { isServiceAccount, listResponse, lookup, oneResponse, requireString, requireWorkspace, resolveUser } from './route-helpers';
import { act, byGid, changed, created, getOne, listOf, memberWorkspaceParam, under, workspaceQuery } from './route-factories';
import { authorOf } from './task-finders';
import { visibleProject } from './project-routes';

const customFieldParam = byGid('custom_field', (s) => s.indexes.customFields);
const portfolioParam = byGid('portfolio', (s) => s.indexes.portfolios);
const statusUpdateParam = byGid('status_update', (s) => s.indexes.statusUpdates);

function updateCustomField(field: CustomField, req: ApiRequest): void {
  const data = bodyData(req);
  for (const k of ['type', 'resource_subtype', 'workspace'] as const)
    if (k in data && data[k] !== (k === 'workspace' ? field.workspace : field.type)) throw cannotWrite(k);
  if ('input_restrictions' in data) {
    if (field.type !== 'reference') throw badRequest('input_restrictions: Only reference fields have input restrictions');
    if (!Array.isArray(data.input_restrictions) || data.input_restrictions.length === 0)
      throw badRequest('input_restrictions: Reference custom fields need at least one allowed type');
    field.inputRestrictions = data.input_restrictions.map(String);
  }
  if (typeof data.name === 'string' && data.name.trim()) field.name = data.name;
  if (typeof data.description === 'string') field.description = data.description;
  if (data.precision !== undefined) {
    if (field.type !== 'number') throw badRequest('precision: Only number fields have a precision');
    if (typeof data.precision !== 'number' || !Number.isInteger(data.precision) || data.precision < 0 || data.precision > 6)
      throw badRequest('precision: must be an integer from 0 to 6');
    field.precision = data.precision;
  }
}

function addEnumOption(req: ApiRequest, ctx: MockContext): EnumOption {
  const field = customFieldParam(req, ctx);
  if (field.type !== 'enum' && field.type !== 'multi_enum') throw badRequest('custom_field: Only enum and multi_enum fields have options');
  const data = bodyData(req);
  return ctx.store.catalog.addEnumOption({
    field: field.gid,
    name: requireString(data, 'name'),
    color: typeof data.color === 'string' ? data.color : 'none',
    enabled: data.enabled === undefined ? true : data.enabled === true,
  });
}

/** Disabling keeps the option in metadata and on values already set to it. */
function updateEnumOption(option: EnumOption, req: ApiRequest): void {
  const data = bodyData(req);
  if (data.enabled !== undefined) {
    if (typeof data.enabled !== 'boolean') throw badRequest('enabled: Not a boolean');
    option.enabled = data.enabled;
  }
  if (typeof data.name === 'string' && data.name.trim()) option.name = data.name;
  if (typeof data.color === 'string') option.color = data.color;
}

function statusUpdatesOfParent(req: ApiRequest, ctx: MockContext): StatusUpdate[] {
  const parent = req.query.parent;
  if (parent === undefined || parent === '') throw missingInput('parent');
  const kind = ctx.store.indexes.kindOf(parent);
  if (kind === 'project') visibleProject(req, ctx, parent, 'parent');
  else if (kind !== 'portfolio' && kind !== 'goal') lookup(new Map<string, StatusUpdate>(), 'parent', parent);
  const since = queryTime(req, 'created_since');
  const list = ctx.store.indexes.list(ctx.store.indexes.statusUpdatesByParent.get(parent), ctx.store.indexes.statusUpdates);
  return since === undefined ? list : list.filter((s) => s.createdAt >= since);
}

/** A user token sees only the portfolios it owns; a service account without owner sees all. */
function portfoliosOfWorkspace(req: ApiRequest, ctx: MockContext): Portfolio[] {
  const ws = workspaceQuery(req, ctx);
  const list = ctx.store.indexes.list(ctx.store.indexes.portfoliosByWorkspace.get(ws.gid), ctx.store.indexes.portfolios);
  if (req.query.owner !== undefined) {
    const owner = resolveUser(req, ctx, req.query.owner, 'owner');
    return list.filter((p) => p.owner === owner.gid);
  }
  return isServiceAccount(req) ? list : list.filter((p) => p.owner === req.caller.user.gid);
}

function createPortfolio(req: ApiRequest, ctx: MockContext): Portfolio {
  const data = bodyData(req);
  const ws = requireWorkspace(ctx, requireString(data, 'workspace'));
  const owner = isServiceAccount(req) ? (typeof data.owner === 'string' ? resolveUser(req, ctx, data.owner, 'owner').gid : undefined) : req.caller.user.gid;
  if (!owner) throw missingInput('owner');
  return ctx.store.catalog.addPortfolio({
    workspace: ws.gid,
    name: requireString(data, 'name'),
    owner,
    color: typeof data.color === 'string' ? data.color : undefined,
  });
}

function goalsOfQuery(req: ApiRequest, ctx: MockContext): Goal[] {
  const s = ctx.store;
  if (req.query.team !== undefined) {
    const team = lookup(s.indexes.teams, 'team', req.query.team);
    return s.indexes.list(s.indexes.goalsByWorkspace.get(team.workspace), s.indexes.goals).filter((g) => g.team === team.gid);
  }
  if (req.query.workspace !== undefined) return s.indexes.list(s.indexes.goalsByWorkspace.get(requireWorkspace(ctx, req.query.workspace).gid), s.indexes.goals);
  throw new ApiError(400, 'Must specify one of workspace, team, project, portfolio or task');
}

export const catalogRoutes: Route[] = [
  listOf(
    '/workspaces/:workspace_gid/custom_fields',
    'customField',
    under(memberWorkspaceParam, (s, ws) => s.indexes.list(s.indexes.customFieldsByWorkspace.get(ws.gid), s.indexes.customFields)),
  ),
  getOne('/custom_fields/:custom_field_gid', 'customField', customFieldParam),
  created('/custom_fields', 'customField', 'custom_fields', (req, ctx) => createCustomField(ctx.store, bodyData(req), req.caller.user.gid)),
  changed('PUT', '/custom_fields/:custom_field_gid', 'customField', customFieldParam, updateCustomField),
  created('/custom_fields/:custom_field_gid/enum_options', 'enumOption', 'enum_options', addEnumOption),
  changed(
    'PUT',
    '/enum_options/:enum_option_gid',
    'enumOption',
    byGid('enum_option', (s) => s.indexes.enumOptions),
    updateEnumOption,
  ),
  listOf('/custom_types', 'customType', (req, ctx) => {
    if (req.query.project === undefined) throw missingInput('project');
    const project = visibleProject(req, ctx, req.query.project);
    return ctx.store.indexes.list(ctx.store.indexes.customTypesByWorkspace.get(project.workspace), ctx.store.indexes.customTypes);
  }),
  getOne(
    '/custom_types/:custom_type_gid',
    'customType',
    byGid('custom_type', (s) => s.indexes.customTypes),
  ),
  listOf('/status_updates', 'statusUpdate', statusUpdatesOfParent),
  getOne('/status_updates/:status_update_gid', 'statusUpdate', statusUpdateParam),
  created('/status_updates', 'statusUpdate', 'status_updates', (req, ctx) => createStatusUpdate(ctx.store, bodyData(req), authorOf(req))),
  act('DELETE', '/status_updates/:status_update_gid', (req, ctx) => ctx.store.catalog.deleteStatusUpdate(statusUpdateParam(req, ctx))),
  listOf('/portfolios', 'portfolio', portfoliosOfWorkspace),
  created('/portfolios', 'portfolio', 'portfolios', createPortfolio),
  getOne('/portfolios/:portfolio_gid', 'portfolio', portfolioParam),
  {
    method: 'GET',
    path: '/portfolios/:portfolio_gid/items',
    handler: (req, ctx) => {
      const s = ctx.store;
      const items = portfolioParam(req, ctx)
        .items.map((g) => s.indexes.projects.get(g) ?? s.indexes.portfolios.get(g))
        .filter((x): x is NonNullable<typeof x> => x !== undefined);
      return listResponse(req, ctx, items, (item) => ('items' in item ? node('portfolio', item as Portfolio) : node('project', item)));
    },
  },
  act('POST', '/portfolios/:portfolio_gid/addItem', (req, ctx) => addPortfolioItem(ctx.store, portfolioParam(req, ctx), bodyData(req).item)),
  act('POST', '/portfolios/:portfolio_gid/removeItem', (req, ctx) => removePortfolioItem(portfolioParam(req, ctx), bodyData(req).item)),
  listOf(
    '/portfolios/:portfolio_gid/custom_field_settings',
    'customFieldSetting',
    under(portfolioParam, (s, p) => s.catalog.settingsOf(p.gid)),
  ),
  {
    method: 'POST',
    path: '/portfolios/:portfolio_gid/addCustomFieldSetting',
    handler: (req, ctx) => {
      const portfolio = portfolioParam(req, ctx);
      const data = bodyData(req);
      return oneResponse(req, ctx, node('customFieldSetting', addCustomFieldSetting(ctx.store, portfolio.gid, data.custom_field, data.is_important)));
    },
  },
  act('POST', '/portfolios/:portfolio_gid/removeCustomFieldSetting', (req, ctx) =>
    removeCustomFieldSetting(ctx.store, portfolioParam(req, ctx).gid, bodyData(req).custom_field),
  ),
  listOf(
    '/portfolios/:portfolio_gid/portfolio_memberships',
    'membership',
    under(portfolioParam, (s, p) => s.projects.memberships(p.gid)),
  ),
  listOf('/goals', 'goal', goalsOfQuery),
  getOne(
    '/goals/:goal_gid',
    'goal',
    byGid('goal', (s) => s.indexes.goals),
  ),
];
