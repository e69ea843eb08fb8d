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
import express, { type Request, type Response } from 'express';
import { ApiError, badRequest, errorBody, missingInput, notFound } from '../api/api-error';
import type { Hostility } from '../hostility';
import type { MockContext } from '../mock-context';
import type { AccessLevel, AttachmentKind, Gid, PrivacySetting, Task } from '../model';
import { parsePlan } from '../rules/plan-tiers';
import { ACCESS_LEVELS, PRIVACY_SETTINGS, removeProjectMembers } from '../rules/projects';

type Handler = (req: Request, res: Response) => unknown;

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
  return String(v).split(',').map((s) => s.trim()).filter(Boolean);
}

export function adminRouter(ctx: MockContext, hooks: { tokenFor(user: Gid): string; advanceClock(ms: number): void }): express.Router {
  const s = ctx.store;
  const router = express.Router();
  const route = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, handler: Handler): void => {
    router[method](path, (req, res) => {
      try {
        const out = handler(req, res);
        if (!res.headersSent) res.json({ data: out ?? {} });
      } catch (err) {
        const status = err instanceof ApiError ? err.status : 500;
        res.status(status).json(errorBody(err instanceof Error ? err.message : String(err)));
      }
    });
  };
  const task = (gid: string | undefined): Task => {
    const t = s.tasks.get(gid ?? '');
    if (!t) throw notFound('task', gid ?? '');
    return t;
  };
  const project = (gid: string | undefined) => {
    const p = s.projects.get(gid ?? '');
    if (!p) throw notFound('project', gid ?? '');
    return p;
  };

  route('get', '/state', () => ({
    workspaces: [...s.workspaces.values()].map((w) => ({ gid: w.gid, name: w.name, is_organization: w.isOrganization, tier: w.tier, add_ons: w.addOns })),
    service_account: ctx.serviceAccount,
    counts: {
      users: s.users.size,
      teams: s.teams.size,
      projects: s.projects.size,
      sections: s.sections.size,
      tasks: s.tasks.size,
      stories: s.stories.size,
      attachments: s.attachments.size,
      custom_fields: s.customFields.size,
      portfolios: s.portfolios.size,
      goals: s.goals.size,
    },
    event_head: s.events.head(),
    now: new Date(s.now()).toISOString(),
    hostility: ctx.hostility(),
  }));
  route('patch', '/hostility', (req) => ctx.setHostility(body(req) as Partial<Hostility>));
  route('post', '/clock', (req) => {
    const ms = Number(body(req).advance_ms);
    if (!Number.isFinite(ms) || ms < 0) throw badRequest('advance_ms: a non-negative number of milliseconds');
    hooks.advanceClock(ms);
    return { now: new Date(s.now()).toISOString() };
  });
  route('post', '/tokens', (req) => {
    const d = body(req);
    const user = str(d, 'user');
    if (!s.users.has(user)) throw notFound('user', user);
    const kind = d.kind ?? 'personal_access_token';
    if (kind === 'personal_access_token') return { user, token: hooks.tokenFor(user), kind };
    if (kind !== 'oauth') throw badRequest('kind: personal_access_token or oauth');
    if (d.scopes !== undefined && !Array.isArray(d.scopes)) throw badRequest('scopes: a list of scopes');
    const ttlMs = d.expires_in === undefined ? undefined : Number(d.expires_in) * 1000;
    const { token, grant } = ctx.tokens.issueOAuthToken(user, { scopes: Array.isArray(d.scopes) ? d.scopes.map(String) : undefined, ttlMs });
    return { user, token, kind, token_type: 'bearer', scopes: grant.scopes, expires_in: Math.round(((grant.expiresAt ?? 0) - s.now()) / 1000) };
  });
  route('post', '/sync-tokens/expire', () => {
    s.events.epoch++;
    return { epoch: s.events.epoch };
  });
  route('post', '/rate-limits/reset', () => {
    ctx.limiter.reset();
    return {};
  });

  route('post', '/tasks', (req) => {
    const d = body(req);
    const projects = gids(d.projects).map((g) => project(g));
    const parent = typeof d.parent === 'string' ? task(d.parent) : undefined;
    const workspace = (typeof d.workspace === 'string' ? d.workspace : undefined) ?? parent?.workspace ?? projects[0]?.workspace;
    if (!workspace || !s.workspaces.has(workspace)) throw missingInput('workspace');
    const section = typeof d.section === 'string' ? d.section : null;
    const t = s.addTask({
      workspace,
      name: typeof d.name === 'string' ? d.name : 'New task',
      notes: typeof d.notes === 'string' ? d.notes : null,
      memberships: projects.map((p) => ({ project: p.gid, section: section && s.sections.get(section)?.project === p.gid ? section : null })),
      parent: parent?.gid ?? null,
      assignee: typeof d.assignee === 'string' ? d.assignee : null,
      followers: gids(d.followers),
      createdBy: typeof d.created_by === 'string' ? d.created_by : null,
    });
    return { gid: t.gid };
  });
  route('put', '/tasks/:gid', (req) => {
    const t = task(param(req, 'gid'));
    const d = body(req);
    if (typeof d.name === 'string') {
      t.name = d.name;
      s.touchTask(t, { field: 'name', action: 'changed', new_value: d.name });
    }
    if (typeof d.notes === 'string') {
      t.notes = d.notes;
      s.touchTask(t, { field: 'notes', action: 'changed', new_value: d.notes });
    }
    if (typeof d.completed === 'boolean') {
      t.completed = d.completed;
      t.completedAt = d.completed ? s.now() : null;
      s.touchTask(t, { field: 'completed', action: 'changed', new_value: d.completed });
    }
    if (d.assignee !== undefined) s.setTaskAssignee(t, typeof d.assignee === 'string' ? d.assignee : null);
    return { gid: t.gid };
  });
  route('post', '/tasks/:gid/move', (req) => {
    const t = task(param(req, 'gid'));
    const d = body(req);
    const to = project(str(d, 'to'));
    if (to.workspace !== t.workspace) throw badRequest('to: the project is in another workspace');
    const from = typeof d.from === 'string' ? [project(d.from).gid] : t.memberships.map((m) => m.project).filter((g) => g !== to.gid);
    s.addTaskToProject(t, to.gid, typeof d.section === 'string' ? d.section : null);
    for (const g of from) if (g !== to.gid) s.removeTaskFromProject(t, g);
    return { gid: t.gid, projects: t.memberships.map((m) => m.project) };
  });
  route('post', '/tasks/:gid/followers', (req) => {
    const t = task(param(req, 'gid'));
    const d = body(req);
    s.addTaskFollowers(t, gids(d.add));
    s.removeTaskFollowers(t, gids(d.remove));
    return { gid: t.gid, followers: t.followers };
  });
  route('delete', '/tasks/:gid', (req) => {
    s.deleteTask(task(param(req, 'gid')));
    return {};
  });
  route('post', '/tasks/delete', (req) => {
    const list = gids(body(req).gids);
    const deleted: string[] = [];
    for (const g of list) {
      const t = s.tasks.get(g);
      if (t) {
        s.deleteTask(t);
        deleted.push(g);
      }
    }
    return { deleted };
  });
  route('post', '/tasks/:gid/comments', (req) => {
    const t = task(param(req, 'gid'));
    const d = body(req);
    const story = s.addStory({ target: t.gid, type: 'comment', text: str(d, 'text'), createdBy: typeof d.author === 'string' ? d.author : null, source: 'api' });
    return { gid: story.gid };
  });
  route('put', '/stories/:gid', (req) => {
    const story = s.stories.get(param(req, 'gid'));
    if (!story) throw notFound('story', param(req, 'gid'));
    if (story.type !== 'comment') throw badRequest('only comments can be edited');
    s.editStory(story, str(body(req), 'text'));
    return { gid: story.gid };
  });
  route('post', '/tasks/:gid/attachments', (req) => {
    const t = task(param(req, 'gid'));
    const d = body(req);
    const kind = str(d, 'kind') as AttachmentKind;
    if (!['pdf', 'docx', 'pptx', 'txt'].includes(kind)) throw badRequest('kind: pdf, docx, pptx or txt');
    const a = s.addAttachment({ parent: t.gid, name: typeof d.name === 'string' ? d.name : `file.${kind}`, kind, host: 'asana' });
    return { gid: a.gid };
  });
  route('delete', '/attachments/:gid', (req) => {
    const a = s.attachments.get(param(req, 'gid'));
    if (!a) throw notFound('attachment', param(req, 'gid'));
    s.deleteAttachment(a);
    return {};
  });
  route('post', '/projects/:gid/members', (req) => {
    const p = project(param(req, 'gid'));
    const d = body(req);
    const member = str(d, 'member');
    const kind = s.kindOf(member);
    if (kind !== 'user' && kind !== 'team') throw notFound('member', member);
    const level = (typeof d.access_level === 'string' ? d.access_level : 'editor') as AccessLevel;
    if (!ACCESS_LEVELS.includes(level)) throw badRequest('access_level');
    return { gid: s.addMembership({ parent: p.gid, member, accessLevel: level }).gid };
  });
  route('delete', '/projects/:gid/members/:member', (req) => {
    const p = project(param(req, 'gid'));
    removeProjectMembers(s, p, [param(req, 'member')]);
    return {};
  });
  route('put', '/projects/:gid', (req) => {
    const p = project(param(req, 'gid'));
    const d = body(req);
    if (d.privacy_setting !== undefined) {
      const v = d.privacy_setting as PrivacySetting;
      if (!PRIVACY_SETTINGS.includes(v)) throw badRequest('privacy_setting');
      s.changeProject(p, 'privacy_setting', () => (p.privacySetting = v), v);
    }
    if (typeof d.archived === 'boolean') s.changeProject(p, 'archived', () => (p.archived = d.archived as boolean), d.archived);
    if (typeof d.name === 'string') s.changeProject(p, 'name', () => (p.name = d.name as string), d.name);
    return { gid: p.gid };
  });
  route('put', '/workspaces/:gid/plan', (req) => {
    const ws = s.workspaces.get(param(req, 'gid'));
    if (!ws) throw notFound('workspace', param(req, 'gid'));
    const plan = parsePlan(body(req));
    if (plan.tier) ws.tier = plan.tier;
    if (plan.addOns) ws.addOns = plan.addOns;
    return { gid: ws.gid, tier: ws.tier, add_ons: ws.addOns };
  });
  route('put', '/workspace_memberships/:gid', (req) => {
    const m = s.workspaceMemberships.get(param(req, 'gid'));
    if (!m) throw notFound('workspace_membership', param(req, 'gid'));
    const active = body(req).is_active;
    if (typeof active !== 'boolean') throw missingInput('is_active');
    s.setWorkspaceMembershipActive(m, active);
    return { gid: m.gid, is_active: m.isActive };
  });
  route('post', '/users/:gid/deactivate', (req) => {
    const user = param(req, 'gid');
    if (!s.users.has(user)) throw notFound('user', user);
    const workspace = body(req).workspace;
    const changed: string[] = [];
    for (const m of s.list(s.workspaceMembershipsByUser.get(user), s.workspaceMemberships)) {
      if (typeof workspace === 'string' && m.workspace !== workspace) continue;
      s.setWorkspaceMembershipActive(m, false);
      changed.push(m.gid);
    }
    return { workspace_memberships: changed };
  });
  route('post', '/team_memberships', (req) => {
    const d = body(req);
    const team = str(d, 'team');
    const user = str(d, 'user');
    if (!s.teams.has(team)) throw notFound('team', team);
    if (!s.users.has(user)) throw notFound('user', user);
    return { gid: s.addTeamMembership({ team, user, isLimitedAccess: d.is_limited_access === true, isGuest: d.is_guest === true }).gid };
  });
  route('delete', '/team_memberships/:gid', (req) => {
    const m = s.teamMemberships.get(param(req, 'gid'));
    if (!m) throw notFound('team_membership', param(req, 'gid'));
    s.removeTeamMembership(m);
    return {};
  });
  route('get', '/events', (req) => {
    const after = Number(req.query.after ?? 0) || 0;
    return s.events.all().filter((e) => e.seq > after);
  });
  route('get', '/notifications', () => s.notifications);
  return router;
}
