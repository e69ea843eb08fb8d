/**
 * The audit log (seed: "audit log event: immutable, read-only record of security and compliance
 * events"; "The audit log endpoints are available only to service accounts in enterprise domains,
 * authenticated with that service account's personal access token"; reference §2):
 * - `GET /workspaces/{gid}/audit_log_events` is the only endpoint: no write or update exists;
 * - only a service account of that domain (its email domain is one of the workspace's), with its
 *   personal access token, in an enterprise domain may read it: any other user → 403, an OAuth
 *   token → 403, a plan below enterprise → 402 (rules/plan-tiers.ts);
 * - events are kept for good, oldest first, filtered by `start_at`, `end_at`, `event_type`,
 *   `actor_type`, `actor_gid`, `resource_gid`;
 * - always paginated (pages of 1,000 without `limit`) and `next_page` is never null: it continues
 *   after the last event served, so a client can poll it for newer events.
 * What is recorded: who joined, left, was deactivated or reactivated; team and project (portfolio,
 * goal) memberships added or removed; project privacy changes; deletions of projects, tasks,
 * comments and attachments; exports started. The actor is the API caller (context `api`, with how it
 * authenticated), else the user the change names, else the system (context `web`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { badRequest, forbidden } from '../api/api-error';
import type { Gid, Membership, Team, TeamMembership, User, Workspace, WorkspaceMembership } from '../model-types';
import type { TokenKind } from './access-tokens';
import type { EventAction, EventChange, EventRef } from './events';

/** What the audit log reads of the store's indexes (store-indexes.ts), which hold the log: names and memberships of the actors. */
export interface AuditedStore {
  readonly users: ReadonlyMap<Gid, User>;
  readonly teams: ReadonlyMap<Gid, Team>;
  readonly workspaces: ReadonlyMap<Gid, Workspace>;
  readonly workspaceMemberships: ReadonlyMap<Gid, WorkspaceMembership>;
  readonly teamMemberships: ReadonlyMap<Gid, TeamMembership>;
  readonly memberships: ReadonlyMap<Gid, Membership>;
}
import { isEnterprise, paymentRequired } from './plan-tiers';

export type AuditCategory = 'user_access' | 'access_control' | 'deletion' | 'content_export';

export interface AuditActor {
  actor_type: 'user' | 'system';
  gid?: Gid;
  name?: string;
  email?: string;
}

export interface AuditLogEvent {
  gid: Gid;
  workspace: Gid;
  createdAt: number;
  eventType: string;
  eventCategory: AuditCategory;
  actor: AuditActor;
  resource: EventRef & { email?: string };
  details: Record<string, unknown>;
  context: { context_type: 'api' | 'web'; api_authentication_method?: TokenKind };
}

/** Who is acting in the current API request (set by the dispatcher around each handler). */
export interface AuditCaller {
  user: Gid;
  tokenKind: TokenKind;
}

const currentCaller = new AsyncLocalStorage<AuditCaller>();

export function runAsCaller<T>(caller: AuditCaller, fn: () => T): T {
  return currentCaller.run(caller, fn);
}

/** Audit gids come from their own range, so recording them never shifts the store's gids. */
const AUDIT_GID_BASE = 1_209_000_000_000_000;

export interface StoreChange {
  action: EventAction;
  resource: EventRef;
  parent: EventRef | null;
  change?: EventChange | undefined;
  user: Gid | null;
  scopes: readonly Gid[];
}

export class AuditLog {
  private readonly events: AuditLogEvent[] = [];

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.events.length;
  }

  all(): readonly AuditLogEvent[] {
    return this.events;
  }

  append(
    store: AuditedStore,
    input: Pick<AuditLogEvent, 'workspace' | 'eventType' | 'eventCategory' | 'resource' | 'details'> & { user?: Gid | null },
  ): AuditLogEvent {
    const caller = currentCaller.getStore();
    const actorGid = caller?.user ?? input.user ?? null;
    const actorUser = actorGid ? store.users.get(actorGid) : undefined;
    const event: AuditLogEvent = {
      gid: String(AUDIT_GID_BASE + this.events.length + 1),
      workspace: input.workspace,
      createdAt: this.now(),
      eventType: input.eventType,
      eventCategory: input.eventCategory,
      actor: actorUser ? { actor_type: 'user', gid: actorUser.gid, name: actorUser.name, email: actorUser.email } : { actor_type: 'system' },
      resource: input.resource,
      details: input.details,
      context: caller ? { context_type: 'api', api_authentication_method: caller.tokenKind } : { context_type: 'web' },
    };
    this.events.push(event);
    return event;
  }

  /** Records the security-relevant changes among those the store records (others are ignored). */
  observe(store: AuditedStore, c: StoreChange): void {
    const workspace = c.scopes.find((g) => store.workspaces.has(g));
    const entry = workspace ? auditEntryOf(store, c) : undefined;
    if (workspace && entry) this.append(store, { workspace, user: c.user, ...entry });
  }
}

function teamRef(store: AuditedStore, gid: Gid): EventRef {
  const name = store.teams.get(gid)?.name;
  return { gid, resource_type: 'team', ...(name !== undefined ? { name } : {}) };
}

function userRef(store: AuditedStore, gid: Gid | undefined): EventRef & { email?: string } {
  const u = gid ? store.users.get(gid) : undefined;
  return u ? { gid: u.gid, resource_type: 'user', name: u.name, email: u.email } : { gid: gid ?? '', resource_type: 'user' };
}

function auditEntryOf(store: AuditedStore, c: StoreChange): Pick<AuditLogEvent, 'eventType' | 'eventCategory' | 'resource' | 'details'> | undefined {
  const type = c.resource.resource_type;
  if (type === 'workspace_membership') {
    const m = store.workspaceMemberships.get(c.resource.gid);
    if (c.action === 'added')
      return {
        eventType: 'user_added_to_workspace',
        eventCategory: 'user_access',
        resource: userRef(store, m?.user),
        details: { is_guest: m?.isGuest ?? false },
      };
    if (c.action === 'changed' && c.change?.field === 'is_active') {
      return {
        eventType: c.change.new_value ? 'user_reactivated' : 'user_deactivated',
        eventCategory: 'user_access',
        resource: userRef(store, m?.user),
        details: {},
      };
    }
    return undefined;
  }
  if (type === 'team_membership' && (c.action === 'added' || c.action === 'removed') && c.parent) {
    const m = store.teamMemberships.get(c.resource.gid);
    return {
      eventType: `team_member_${c.action}`,
      eventCategory: 'access_control',
      resource: c.parent,
      details: m ? { member: userRef(store, m.user) } : { member: { name: c.resource.name } },
    };
  }
  if (type === 'membership' && (c.action === 'added' || c.action === 'removed') && c.parent) {
    const m = store.memberships.get(c.resource.gid);
    const member = m ? (m.memberType === 'user' ? userRef(store, m.member) : teamRef(store, m.member)) : undefined;
    return {
      eventType: `${c.parent.resource_type}_member_${c.action}`,
      eventCategory: 'access_control',
      resource: c.parent,
      details: { ...(member ? { member } : {}), ...(m ? { access_level: m.accessLevel } : {}) },
    };
  }
  if (type === 'project' && c.action === 'changed' && c.change?.field === 'privacy_setting') {
    return { eventType: 'project_privacy_setting_changed', eventCategory: 'access_control', resource: c.resource, details: { new_value: c.change.new_value } };
  }
  if (c.action === 'deleted' && (type === 'project' || type === 'task' || type === 'story' || type === 'attachment')) {
    return { eventType: `${type}_deleted`, eventCategory: 'deletion', resource: c.resource, details: c.parent ? { parent: c.parent } : {} };
  }
  return undefined;
}

// ----------------------------------------------------------------------------------------------
// Who may read it, and how it pages
// ----------------------------------------------------------------------------------------------

/** The seed's access rule: a service account of an enterprise domain, with its personal access token. */
export function assertAuditLogReader(ws: Workspace, caller: User, tokenKind: TokenKind | undefined): void {
  if (!caller.isServiceAccount) throw forbidden('The audit log is only available to service accounts.');
  const domain = caller.email.split('@')[1]?.toLowerCase() ?? '';
  if (!ws.emailDomains.map((d) => d.toLowerCase()).includes(domain)) throw forbidden('The audit log is only available to service accounts of this domain.');
  if (tokenKind !== 'personal_access_token') throw forbidden("The audit log requires the service account's personal access token.");
  if (!isEnterprise(ws)) throw paymentRequired('The audit log is only available to Enterprise domains.');
}

export const AUDIT_PAGE_DEFAULT = 1000;
export const ACTOR_TYPES = ['user', 'system'] as const;

export interface AuditFilters {
  startAt?: number;
  endAt?: number;
  eventType?: string;
  actorType?: string;
  actorGid?: string;
  resourceGid?: string;
}

export function parseAuditFilters(query: Record<string, string>): AuditFilters {
  const time = (name: string): number | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw badRequest(`${name}: Not a valid date-time: ${v}`);
    return t;
  };
  const actorType = query.actor_type;
  if (actorType !== undefined && !(ACTOR_TYPES as readonly string[]).includes(actorType))
    throw badRequest(`actor_type: must be one of ${ACTOR_TYPES.join(', ')}`);
  return {
    startAt: time('start_at'),
    endAt: time('end_at'),
    eventType: query.event_type,
    actorType,
    actorGid: query.actor_gid,
    resourceGid: query.resource_gid,
  };
}

export function matchesAudit(e: AuditLogEvent, workspace: Gid, f: AuditFilters): boolean {
  return (
    e.workspace === workspace &&
    (f.startAt === undefined || e.createdAt >= f.startAt) &&
    (f.endAt === undefined || e.createdAt < f.endAt) &&
    (f.eventType === undefined || e.eventType === f.eventType) &&
    (f.actorType === undefined || e.actor.actor_type === f.actorType) &&
    (f.actorGid === undefined || e.actor.gid === f.actorGid) &&
    (f.resourceGid === undefined || e.resource.gid === f.resourceGid)
  );
}

export function renderAuditEvent(e: AuditLogEvent): Record<string, unknown> {
  return {
    gid: e.gid,
    created_at: new Date(e.createdAt).toISOString(),
    event_type: e.eventType,
    event_category: e.eventCategory,
    actor: e.actor,
    resource: e.resource,
    details: e.details,
    context: e.context,
  };
}
