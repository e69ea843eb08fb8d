/**
 * Custom fields and their settings, enum options, custom types, status updates, portfolios and
 * goals (reference §5.12, 5.14–5.16).
 */
import { ApiError, badRequest, cannotWrite, missingInput } from '../api/api-error';
import { node, nodeMaker } from '../api/representations';
import { bodyData, queryTime, type Route } from '../api/route-table';
import type { Portfolio, StatusUpdate } from '../model';
import { addCustomFieldSetting, createCustomField, removeCustomFieldSetting } from '../rules/custom-fields';
import { addPortfolioItem, removePortfolioItem } from '../rules/projects';
import { createStatusUpdate } from '../rules/status-updates';
import { assertInWorkspace, createdResponse, emptyResponse, isServiceAccount, listResponse, lookup, oneResponse, requireString, requireWorkspace, resolveUser } from './route-helpers';
import { visibleProject } from './project-routes';

export const catalogRoutes: Route[] = [
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/custom_fields',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.customFieldsByWorkspace.get(ws.gid), ctx.store.customFields), nodeMaker('customField'));
    },
  },
  {
    method: 'GET',
    path: '/custom_fields/:custom_field_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('customField', lookup(ctx.store.customFields, 'custom_field', req.params.custom_field_gid))),
  },
  {
    method: 'POST',
    path: '/custom_fields',
    handler: (req, ctx) => {
      const field = createCustomField(ctx.store, bodyData(req), req.caller.user.gid);
      return createdResponse(req, ctx, node('customField', field), `/custom_fields/${field.gid}`);
    },
  },
  {
    method: 'PUT',
    path: '/custom_fields/:custom_field_gid',
    handler: (req, ctx) => {
      const field = lookup(ctx.store.customFields, 'custom_field', req.params.custom_field_gid);
      const data = bodyData(req);
      for (const k of ['type', 'resource_subtype', 'workspace'] as const) if (k in data && data[k] !== (k === 'workspace' ? field.workspace : field.type)) throw cannotWrite(k);
      if ('input_restrictions' in data) {
        if (field.type !== 'reference') throw badRequest('input_restrictions: Only reference fields have input restrictions');
        if (!Array.isArray(data.input_restrictions) || data.input_restrictions.length === 0) throw badRequest('input_restrictions: Reference custom fields need at least one allowed type');
        field.inputRestrictions = data.input_restrictions.map(String);
      }
      if (typeof data.name === 'string' && data.name.trim()) field.name = data.name;
      if (typeof data.description === 'string') field.description = data.description;
      if (data.precision !== undefined) {
        if (field.type !== 'number') throw badRequest('precision: Only number fields have a precision');
        if (typeof data.precision !== 'number' || !Number.isInteger(data.precision) || data.precision < 0 || data.precision > 6) throw badRequest('precision: must be an integer from 0 to 6');
        field.precision = data.precision;
      }
      return oneResponse(req, ctx, node('customField', field));
    },
  },
  {
    method: 'POST',
    path: '/custom_fields/:custom_field_gid/enum_options',
    handler: (req, ctx) => {
      const field = lookup(ctx.store.customFields, 'custom_field', req.params.custom_field_gid);
      if (field.type !== 'enum' && field.type !== 'multi_enum') throw badRequest('custom_field: Only enum and multi_enum fields have options');
      const data = bodyData(req);
      const option = ctx.store.addEnumOption({ field: field.gid, name: requireString(data, 'name'), color: typeof data.color === 'string' ? data.color : 'none', enabled: data.enabled === undefined ? true : data.enabled === true });
      return createdResponse(req, ctx, node('enumOption', option), `/enum_options/${option.gid}`);
    },
  },
  {
    method: 'PUT',
    path: '/enum_options/:enum_option_gid',
    handler: (req, ctx) => {
      const option = lookup(ctx.store.enumOptions, 'enum_option', req.params.enum_option_gid);
      const data = bodyData(req);
      // Disabling keeps the option in metadata and on values already set to it.
      if (data.enabled !== undefined) {
        if (typeof data.enabled !== 'boolean') throw badRequest('enabled: Not a boolean');
        option.enabled = data.enabled;
      }
      if (typeof data.name === 'string' && data.name.trim()) option.name = data.name;
      if (typeof data.color === 'string') option.color = data.color;
      return oneResponse(req, ctx, node('enumOption', option));
    },
  },
  {
    method: 'GET',
    path: '/custom_types',
    handler: (req, ctx) => {
      if (req.query.project === undefined) throw missingInput('project');
      const project = visibleProject(req, ctx, req.query.project);
      return listResponse(req, ctx, ctx.store.list(ctx.store.customTypesByWorkspace.get(project.workspace), ctx.store.customTypes), nodeMaker('customType'));
    },
  },
  {
    method: 'GET',
    path: '/custom_types/:custom_type_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('customType', lookup(ctx.store.customTypes, 'custom_type', req.params.custom_type_gid))),
  },
  {
    method: 'GET',
    path: '/status_updates',
    handler: (req, ctx) => {
      const parent = req.query.parent;
      if (parent === undefined || parent === '') throw missingInput('parent');
      const kind = ctx.store.kindOf(parent);
      if (kind === 'project') visibleProject(req, ctx, parent, 'parent');
      else if (kind !== 'portfolio' && kind !== 'goal') lookup(new Map<string, StatusUpdate>(), 'parent', parent);
      const since = queryTime(req, 'created_since');
      let list = ctx.store.list(ctx.store.statusUpdatesByParent.get(parent), ctx.store.statusUpdates);
      if (since !== undefined) list = list.filter((s) => s.createdAt >= since);
      return listResponse(req, ctx, list, nodeMaker('statusUpdate'));
    },
  },
  {
    method: 'GET',
    path: '/status_updates/:status_update_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('statusUpdate', lookup(ctx.store.statusUpdates, 'status_update', req.params.status_update_gid))),
  },
  {
    method: 'POST',
    path: '/status_updates',
    handler: (req, ctx) => {
      const update = createStatusUpdate(ctx.store, bodyData(req), isServiceAccount(req) ? null : req.caller.user.gid);
      return createdResponse(req, ctx, node('statusUpdate', update), `/status_updates/${update.gid}`);
    },
  },
  {
    method: 'DELETE',
    path: '/status_updates/:status_update_gid',
    handler: (req, ctx) => {
      ctx.store.deleteStatusUpdate(lookup(ctx.store.statusUpdates, 'status_update', req.params.status_update_gid));
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/portfolios',
    handler: (req, ctx) => {
      if (req.query.workspace === undefined) throw missingInput('workspace');
      const ws = requireWorkspace(ctx, req.query.workspace);
      let list = ctx.store.list(ctx.store.portfoliosByWorkspace.get(ws.gid), ctx.store.portfolios);
      // A user token sees only the portfolios it owns; a service account without owner sees all.
      if (req.query.owner !== undefined) {
        const owner = resolveUser(req, ctx, req.query.owner, 'owner');
        list = list.filter((p) => p.owner === owner.gid);
      } else if (!isServiceAccount(req)) list = list.filter((p) => p.owner === req.caller.user.gid);
      return listResponse(req, ctx, list, nodeMaker('portfolio'));
    },
  },
  {
    method: 'POST',
    path: '/portfolios',
    handler: (req, ctx) => {
      const data = bodyData(req);
      const ws = requireWorkspace(ctx, requireString(data, 'workspace'));
      const owner = isServiceAccount(req) ? (typeof data.owner === 'string' ? resolveUser(req, ctx, data.owner, 'owner').gid : undefined) : req.caller.user.gid;
      if (!owner) throw missingInput('owner');
      const portfolio = ctx.store.addPortfolio({ workspace: ws.gid, name: requireString(data, 'name'), owner, color: typeof data.color === 'string' ? data.color : undefined });
      return createdResponse(req, ctx, node('portfolio', portfolio), `/portfolios/${portfolio.gid}`);
    },
  },
  {
    method: 'GET',
    path: '/portfolios/:portfolio_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('portfolio', lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid))),
  },
  {
    method: 'GET',
    path: '/portfolios/:portfolio_gid/items',
    handler: (req, ctx) => {
      const s = ctx.store;
      const portfolio = lookup(s.portfolios, 'portfolio', req.params.portfolio_gid);
      const items = portfolio.items.map((g) => s.projects.get(g) ?? s.portfolios.get(g)).filter((x): x is NonNullable<typeof x> => x !== undefined);
      return listResponse(req, ctx, items, (item) => ('items' in item ? node('portfolio', item as Portfolio) : node('project', item)));
    },
  },
  {
    method: 'POST',
    path: '/portfolios/:portfolio_gid/addItem',
    handler: (req, ctx) => {
      addPortfolioItem(ctx.store, lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid), bodyData(req).item);
      return emptyResponse();
    },
  },
  {
    method: 'POST',
    path: '/portfolios/:portfolio_gid/removeItem',
    handler: (req, ctx) => {
      removePortfolioItem(lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid), bodyData(req).item);
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/portfolios/:portfolio_gid/custom_field_settings',
    handler: (req, ctx) => listResponse(req, ctx, ctx.store.settingsOf(lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid).gid), nodeMaker('customFieldSetting')),
  },
  {
    method: 'POST',
    path: '/portfolios/:portfolio_gid/addCustomFieldSetting',
    handler: (req, ctx) => {
      const portfolio = lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid);
      const data = bodyData(req);
      const setting = addCustomFieldSetting(ctx.store, portfolio.gid, data.custom_field, data.is_important);
      return oneResponse(req, ctx, node('customFieldSetting', setting));
    },
  },
  {
    method: 'POST',
    path: '/portfolios/:portfolio_gid/removeCustomFieldSetting',
    handler: (req, ctx) => {
      removeCustomFieldSetting(ctx.store, lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid).gid, bodyData(req).custom_field);
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/portfolios/:portfolio_gid/portfolio_memberships',
    handler: (req, ctx) => {
      const portfolio = lookup(ctx.store.portfolios, 'portfolio', req.params.portfolio_gid);
      return listResponse(req, ctx, ctx.store.projectMemberships(portfolio.gid), nodeMaker('membership'));
    },
  },
  {
    method: 'GET',
    path: '/goals',
    handler: (req, ctx) => {
      const s = ctx.store;
      let list;
      if (req.query.team !== undefined) {
        const team = lookup(s.teams, 'team', req.query.team);
        list = s.list(s.goalsByWorkspace.get(team.workspace), s.goals).filter((g) => g.team === team.gid);
      } else if (req.query.workspace !== undefined) list = s.list(s.goalsByWorkspace.get(requireWorkspace(ctx, req.query.workspace).gid), s.goals);
      else throw new ApiError(400, 'Must specify one of workspace, team, project, portfolio or task');
      return listResponse(req, ctx, list, nodeMaker('goal'));
    },
  },
  {
    method: 'GET',
    path: '/goals/:goal_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('goal', lookup(ctx.store.goals, 'goal', req.params.goal_gid))),
  },
];
