/**
 * Private mutation endpoints under `/_admin` for tests and the end-to-end harness (bearer token
 * required, no hostility). Every change goes through the store's builders, so each one is
 * recorded in the events stream exactly as a change made through the public API would be.
 *
 *   GET    /_admin/state                              counts, workspaces, event head, hostility
 *   PATCH  /_admin/hostility                          {…Hostility}: change limits/faults/TTLs live
 *   POST   /_admin/clock                              {advance_ms}: move the mock's clock forward
 *   POST   /_admin/tokens                             {user, kind?, scopes?, expires_in?}: a bearer token acting as
 *                                                     that user: a personal access token, or with kind `oauth` an
 *                                                     OAuth token with scopes (default `default`), expiring (s)
 *   POST   /_admin/sync-tokens/expire                 every events sync token becomes invalid (412)
 *   POST   /_admin/rate-limits/reset                  forget per-token rate-limit state
 *   POST   /_admin/tasks                              {name, workspace?, projects?, section?, parent?, assignee?, followers?, notes?}
 *   PUT    /_admin/tasks/:gid                         {name?, notes?, assignee?, completed?}
 *   POST   /_admin/tasks/:gid/move                    {to, from?, section?}: from omitted = leave every project
 *   POST   /_admin/tasks/:gid/followers               {add?: [gid], remove?: [gid]}
 *   DELETE /_admin/tasks/:gid                         delete (with subtasks, stories, attachments)
 *   POST   /_admin/tasks/delete                       {gids: [gid]}
 *   POST   /_admin/tasks/:gid/comments                {text, author?}
 *   PUT    /_admin/stories/:gid                       {text}: edit a comment
 *   POST   /_admin/tasks/:gid/attachments             {name, kind: pdf|docx|pptx|txt}
 *   DELETE /_admin/attachments/:gid
 *   POST   /_admin/projects/:gid/members              {member, access_level?}: user or team
 *   DELETE /_admin/projects/:gid/members/:member      remove a member (also unfollows)
 *   PUT    /_admin/projects/:gid                      {privacy_setting?, archived?, name?}
 *   PUT    /_admin/workspaces/:gid/plan               {tier?, add_ons?}: the domain's plan (rules/plan-tiers.ts)
 *   PUT    /_admin/workspace_memberships/:gid         {is_active}
 *   POST   /_admin/users/:gid/deactivate              {workspace?}: every membership when omitted
 *   POST   /_admin/team_memberships                   {team, user, is_limited_access?, is_guest?}
 *   DELETE /_admin/team_memberships/:gid
 *   GET    /_admin/events?after=<seq>                 the raw event log (with scopes)
 *   GET    /_admin/notifications                      who was notified of status updates
 */
import express, { type Request } from 'express';
import { ApiError, badRequest, errorBody, missingInput, notFound } from '../api/api-error';
import type { Hostility } from '../hostility';
import type { MockContext } from '../mock-context';
import type { AccessLevel, AttachmentKind, Gid, PrivacySetting } from '../model';
import { parsePlan } from '../rules/plan-tiers';
import { ACCESS_LEVELS, PRIVACY_SETTINGS, removeProjectMembers } from '../rules/projects';

/** What the admin handlers work on: the mock and the server's hooks for tokens and the clock. */
interface AdminEnv {
  ctx: MockContext;
  hooks: AdminHooks;
}

export interface AdminHooks {
  tokenFor(user: Gid): string;
  advanceClock(ms: number): void;
}

/** An admin handler: its result is the response's `data` (`{}` when it returns nothing). */
type AdminHandler = (req: Request, env: AdminEnv) => unknown;

interface AdminRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  handler: AdminHandler;
}

function body(req: Request): Record<string, unknown> {
  const b = req.body as unknown;
  if (b === undefined || b === null) return {};
  if (typeof b !== 'object' || Array.isArray(b)) throw badRequest('body: expected a JSON object');
  const o = b as Record<string, unknown>;
  // Accept both a bare object and the API's {data: …} envelope.
  return typeof o.data === 'object' && o.data !== null && !Array.isArray(o.data) ? (o.data as Record<string, unknown>) : o;
}

function param(req: Request, name: string): string {
  const v = req.params[name];
  return typeof v === 'string' ? v : '';
}

function str(data: Record<string, unknown>, field: string): string {
  const v = data[field];
  if (typeof v !== 'string' || v === '') throw missingInput(field);
  return v;
}

function gids(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The record of `gid` in `map`, or 404. */
function found<T>(map: ReadonlyMap<Gid, T>, type: string, gid: string | undefined): T {
  const item = map.get(gid ?? '');
  if (item === undefined) throw notFound(type, gid ?? '');
  return item;
}

/** The record named by the path's `:gid`, or 404. */
function byParam<T>(req: Request, map: ReadonlyMap<Gid, T>, type: string): T {
  return found(map, type, param(req, 'gid'));
}

function state(_req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  return {
    workspaces: [...s.indexes.workspaces.values()].map((w) => ({
      gid: w.gid,
      name: w.name,
      is_organization: w.isOrganization,
      tier: w.tier,
      add_ons: w.addOns,
    })),
    service_account: ctx.serviceAccount,
    counts: {
      users: s.indexes.users.size,
      teams: s.indexes.teams.size,
      projects: s.indexes.projects.size,
      sections: s.indexes.sections.size,
      tasks: s.indexes.tasks.size,
      stories: s.indexes.stories.size,
      attachments: s.indexes.attachments.size,
      custom_fields: s.indexes.customFields.size,
      portfolios: s.indexes.portfolios.size,
      goals: s.indexes.goals.size,
    },
    event_head: s.indexes.events.head(),
    now: new Date(s.indexes.now()).toISOString(),
    hostility: ctx.hostility(),
  };
}

function advanceClock(req: Request, { ctx, hooks }: AdminEnv): unknown {
  const ms = Number(body(req).advance_ms);
  if (!Number.isFinite(ms) || ms < 0) throw badRequest('advance_ms: a non-negative number of milliseconds');
  hooks.advanceClock(ms);
  return { now: new Date(ctx.store.indexes.now()).toISOString() };
}

function issueToken(req: Request, { ctx, hooks }: AdminEnv): unknown {
  const s = ctx.store;
  const d = body(req);
  const user = str(d, 'user');
  if (!s.indexes.users.has(user)) throw notFound('user', user);
  const kind = d.kind ?? 'personal_access_token';
  if (kind === 'personal_access_token') return { user, token: hooks.tokenFor(user), kind };
  if (kind !== 'oauth') throw badRequest('kind: personal_access_token or oauth');
  if (d.scopes !== undefined && !Array.isArray(d.scopes)) throw badRequest('scopes: a list of scopes');
  const ttlMs = d.expires_in === undefined ? undefined : Number(d.expires_in) * 1000;
  const { token, grant } = ctx.tokens.issueOAuthToken(user, { scopes: Array.isArray(d.scopes) ? d.scopes.map(String) : undefined, ttlMs });
  return { user, token, kind, token_type: 'bearer', scopes: grant.scopes, expires_in: Math.round(((grant.expiresAt ?? 0) - s.indexes.now()) / 1000) };
}

function addTask(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const d = body(req);
  const projects = gids(d.projects).map((g) => found(s.indexes.projects, 'project', g));
  const parent = typeof d.parent === 'string' ? found(s.indexes.tasks, 'task', d.parent) : undefined;
  const workspace = (typeof d.workspace === 'string' ? d.workspace : undefined) ?? parent?.workspace ?? projects[0]?.workspace;
  if (!workspace || !s.indexes.workspaces.has(workspace)) throw missingInput('workspace');
  const section = typeof d.section === 'string' ? d.section : null;
  const t = s.tasks.add({
    workspace,
    name: typeof d.name === 'string' ? d.name : 'New task',
    notes: typeof d.notes === 'string' ? d.notes : null,
    memberships: projects.map((p) => ({ project: p.gid, section: section && s.indexes.sections.get(section)?.project === p.gid ? section : null })),
    parent: parent?.gid ?? null,
    assignee: typeof d.assignee === 'string' ? d.assignee : null,
    followers: gids(d.followers),
    createdBy: typeof d.created_by === 'string' ? d.created_by : null,
  });
  return { gid: t.gid };
}

function updateTask(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const t = byParam(req, s.indexes.tasks, 'task');
  const d = body(req);
  if (typeof d.name === 'string') {
    t.name = d.name;
    s.tasks.touch(t, { field: 'name', action: 'changed', new_value: d.name });
  }
  if (typeof d.notes === 'string') {
    t.notes = d.notes;
    s.tasks.touch(t, { field: 'notes', action: 'changed', new_value: d.notes });
  }
  if (typeof d.completed === 'boolean') {
    t.completed = d.completed;
    t.completedAt = d.completed ? s.indexes.now() : null;
    s.tasks.touch(t, { field: 'completed', action: 'changed', new_value: d.completed });
  }
  if (d.assignee !== undefined) s.tasks.setAssignee(t, typeof d.assignee === 'string' ? d.assignee : null);
  return { gid: t.gid };
}

function moveTask(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const t = byParam(req, s.indexes.tasks, 'task');
  const d = body(req);
  const to = found(s.indexes.projects, 'project', str(d, 'to'));
  if (to.workspace !== t.workspace) throw badRequest('to: the project is in another workspace');
  const from =
    typeof d.from === 'string' ? [found(s.indexes.projects, 'project', d.from).gid] : t.memberships.map((m) => m.project).filter((g) => g !== to.gid);
  s.tasks.addToProject(t, to.gid, typeof d.section === 'string' ? d.section : null);
  for (const g of from) if (g !== to.gid) s.tasks.removeFromProject(t, g);
  return { gid: t.gid, projects: t.memberships.map((m) => m.project) };
}

function changeFollowers(req: Request, { ctx }: AdminEnv): unknown {
  const t = byParam(req, ctx.store.indexes.tasks, 'task');
  const d = body(req);
  ctx.store.tasks.addFollowers(t, gids(d.add));
  ctx.store.tasks.removeFollowers(t, gids(d.remove));
  return { gid: t.gid, followers: t.followers };
}

function deleteTasks(req: Request, { ctx }: AdminEnv): unknown {
  const deleted: string[] = [];
  for (const g of gids(body(req).gids)) {
    const t = ctx.store.indexes.tasks.get(g);
    if (t) {
      ctx.store.tasks.delete(t);
      deleted.push(g);
    }
  }
  return { deleted };
}

function addComment(req: Request, { ctx }: AdminEnv): unknown {
  const t = byParam(req, ctx.store.indexes.tasks, 'task');
  const d = body(req);
  const story = ctx.store.tasks.addStory({
    target: t.gid,
    type: 'comment',
    text: str(d, 'text'),
    createdBy: typeof d.author === 'string' ? d.author : null,
    source: 'api',
  });
  return { gid: story.gid };
}

function editComment(req: Request, { ctx }: AdminEnv): unknown {
  const story = byParam(req, ctx.store.indexes.stories, 'story');
  if (story.type !== 'comment') throw badRequest('only comments can be edited');
  ctx.store.tasks.editStory(story, str(body(req), 'text'));
  return { gid: story.gid };
}

function addAttachment(req: Request, { ctx }: AdminEnv): unknown {
  const t = byParam(req, ctx.store.indexes.tasks, 'task');
  const d = body(req);
  const kind = str(d, 'kind') as AttachmentKind;
  if (!['pdf', 'docx', 'pptx', 'txt'].includes(kind)) throw badRequest('kind: pdf, docx, pptx or txt');
  const a = ctx.store.tasks.addAttachment({ parent: t.gid, name: typeof d.name === 'string' ? d.name : `file.${kind}`, kind, host: 'asana' });
  return { gid: a.gid };
}

function addMember(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const p = byParam(req, s.indexes.projects, 'project');
  const d = body(req);
  const member = str(d, 'member');
  const kind = s.indexes.kindOf(member);
  if (kind !== 'user' && kind !== 'team') throw notFound('member', member);
  const level = (typeof d.access_level === 'string' ? d.access_level : 'editor') as AccessLevel;
  if (!ACCESS_LEVELS.includes(level)) throw badRequest('access_level');
  return { gid: s.projects.addMembership({ parent: p.gid, member, accessLevel: level }).gid };
}

function updateProject(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const p = byParam(req, s.indexes.projects, 'project');
  const d = body(req);
  if (d.privacy_setting !== undefined) {
    const v = d.privacy_setting as PrivacySetting;
    if (!PRIVACY_SETTINGS.includes(v)) throw badRequest('privacy_setting');
    s.projects.change(p, 'privacy_setting', () => (p.privacySetting = v), v);
  }
  if (typeof d.archived === 'boolean') s.projects.change(p, 'archived', () => (p.archived = d.archived as boolean), d.archived);
  if (typeof d.name === 'string') s.projects.change(p, 'name', () => (p.name = d.name as string), d.name);
  return { gid: p.gid };
}

function setPlan(req: Request, { ctx }: AdminEnv): unknown {
  const ws = byParam(req, ctx.store.indexes.workspaces, 'workspace');
  const plan = parsePlan(body(req));
  if (plan.tier) ws.tier = plan.tier;
  if (plan.addOns) ws.addOns = plan.addOns;
  return { gid: ws.gid, tier: ws.tier, add_ons: ws.addOns };
}

function setMembershipActive(req: Request, { ctx }: AdminEnv): unknown {
  const m = byParam(req, ctx.store.indexes.workspaceMemberships, 'workspace_membership');
  const active = body(req).is_active;
  if (typeof active !== 'boolean') throw missingInput('is_active');
  ctx.store.people.setWorkspaceMembershipActive(m, active);
  return { gid: m.gid, is_active: m.isActive };
}

function deactivateUser(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const user = param(req, 'gid');
  if (!s.indexes.users.has(user)) throw notFound('user', user);
  const workspace = body(req).workspace;
  const changed: string[] = [];
  for (const m of s.indexes.list(s.indexes.workspaceMembershipsByUser.get(user), s.indexes.workspaceMemberships)) {
    if (typeof workspace === 'string' && m.workspace !== workspace) continue;
    s.people.setWorkspaceMembershipActive(m, false);
    changed.push(m.gid);
  }
  return { workspace_memberships: changed };
}

function addTeamMembership(req: Request, { ctx }: AdminEnv): unknown {
  const s = ctx.store;
  const d = body(req);
  const team = str(d, 'team');
  const user = str(d, 'user');
  if (!s.indexes.teams.has(team)) throw notFound('team', team);
  if (!s.indexes.users.has(user)) throw notFound('user', user);
  return { gid: s.people.addTeamMembership({ team, user, isLimitedAccess: d.is_limited_access === true, isGuest: d.is_guest === true }).gid };
}

const ADMIN_ROUTES: readonly AdminRoute[] = [
  { method: 'get', path: '/state', handler: state },
  { method: 'patch', path: '/hostility', handler: (req, { ctx }) => ctx.setHostility(body(req) as Partial<Hostility>) },
  { method: 'post', path: '/clock', handler: advanceClock },
  { method: 'post', path: '/tokens', handler: issueToken },
  { method: 'post', path: '/sync-tokens/expire', handler: (_req, { ctx }) => ({ epoch: ++ctx.store.indexes.events.epoch }) },
  { method: 'post', path: '/rate-limits/reset', handler: (_req, { ctx }) => ctx.limiter.reset() },
  { method: 'post', path: '/tasks', handler: addTask },
  { method: 'put', path: '/tasks/:gid', handler: updateTask },
  { method: 'post', path: '/tasks/:gid/move', handler: moveTask },
  { method: 'post', path: '/tasks/:gid/followers', handler: changeFollowers },
  { method: 'delete', path: '/tasks/:gid', handler: (req, { ctx }) => ctx.store.tasks.delete(byParam(req, ctx.store.indexes.tasks, 'task')) },
  { method: 'post', path: '/tasks/delete', handler: deleteTasks },
  { method: 'post', path: '/tasks/:gid/comments', handler: addComment },
  { method: 'put', path: '/stories/:gid', handler: editComment },
  { method: 'post', path: '/tasks/:gid/attachments', handler: addAttachment },
  {
    method: 'delete',
    path: '/attachments/:gid',
    handler: (req, { ctx }) => ctx.store.tasks.deleteAttachment(byParam(req, ctx.store.indexes.attachments, 'attachment')),
  },
  { method: 'post', path: '/projects/:gid/members', handler: addMember },
  {
    method: 'delete',
    path: '/projects/:gid/members/:member',
    handler: (req, { ctx }) => removeProjectMembers(ctx.store, byParam(req, ctx.store.indexes.projects, 'project'), [param(req, 'member')]),
  },
  { method: 'put', path: '/projects/:gid', handler: updateProject },
  { method: 'put', path: '/workspaces/:gid/plan', handler: setPlan },
  { method: 'put', path: '/workspace_memberships/:gid', handler: setMembershipActive },
  { method: 'post', path: '/users/:gid/deactivate', handler: deactivateUser },
  { method: 'post', path: '/team_memberships', handler: addTeamMembership },
  {
    method: 'delete',
    path: '/team_memberships/:gid',
    handler: (req, { ctx }) => ctx.store.people.removeTeamMembership(byParam(req, ctx.store.indexes.teamMemberships, 'team_membership')),
  },
  { method: 'get', path: '/events', handler: (req, { ctx }) => ctx.store.indexes.events.all().filter((e) => e.seq > (Number(req.query.after ?? 0) || 0)) },
  { method: 'get', path: '/notifications', handler: (_req, { ctx }) => ctx.store.indexes.notifications },
];

export function adminRouter(ctx: MockContext, hooks: AdminHooks): express.Router {
  const router = express.Router();
  const env: AdminEnv = { ctx, hooks };
  for (const { method, path, handler } of ADMIN_ROUTES) {
    router[method](path, (req, res) => {
      try {
        res.json({ data: handler(req, env) ?? {} });
      } catch (err) {
        const status = err instanceof ApiError ? err.status : 500;
        res.status(status).json(errorBody(err instanceof Error ? err.message : String(err)));
      }
    });
  }
  return router;
}
