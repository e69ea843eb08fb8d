import fs from 'node:fs';
import path from 'node:path';
import Mustache from 'mustache';
import { escapeHtml } from '../../lib/escape-html';
import type { Readable } from 'node:stream';
import type { AccessEntry, FileRecord, GroupRecord, Principal, SupportedMimeType, UserRecord } from '../adapter';
import type {
  WmAttachment,
  WmMembership,
  WmProject,
  WmStory,
  WmTask,
  WmTeam,
  WmTeamMembership,
  WmUser,
  WmWorkspaceMembership,
} from './work-management-records';

/**
 * Pure mapping from work-management records to the gateway's vocabulary, following the visibility
 * rules of the work-management reference (§6): a project's audience is its members (users and
 * whole teams), plus every workspace member when it is public to the workspace (never guests),
 * plus its team when it is team-only; a task is visible through any of its projects, and to its
 * assignee and followers; a task in no project only to its assignee and followers. Anything
 * uncertain fails closed. Inactive users are kept as Inactive users but given no access.
 */
export const groupId = {
  workspaceMembers: (workspaceGid: string) => `workspace-members:${workspaceGid}`,
  team: (teamGid: string) => `team:${teamGid}`,
  project: (projectGid: string) => `project:${projectGid}`,
  /** Only for portfolios that some project inherits access control from (reference §5.15). */
  portfolio: (portfolioGid: string) => `portfolio:${portfolioGid}`,
};

export const fileId = {
  task: (gid: string) => `task:${gid}`,
  attachment: (gid: string) => `attachment:${gid}`,
};

/** Users who count: active members of the workspace (guests included; they only lose workspace-wide access). */
export interface Population {
  active: ReadonlySet<string>;
  guests: ReadonlySet<string>;
}

/**
 * The active members and guests of a workspace. With `users`, only users the adapter can yield
 * (those with an email) count as active, so no access list or group names a user that is not
 * also synced.
 */
export function population(memberships: readonly WmWorkspaceMembership[], users?: readonly WmUser[]): Population {
  const known = users ? new Set(users.filter((u) => u.email).map((u) => u.gid)) : undefined;
  const active = new Set<string>();
  const guests = new Set<string>();
  for (const m of memberships) {
    if (!m.is_active || (known && !known.has(m.user.gid))) continue;
    active.add(m.user.gid);
    if (m.is_guest) guests.add(m.user.gid);
  }
  return { active, guests };
}

export function toUser(user: WmUser, people: Population): UserRecord | undefined {
  if (!user.email) return undefined; // the platform joins on email: a user without one cannot be resolved
  return {
    nativeId: user.gid,
    email: user.email,
    fullName: user.name,
    active: people.active.has(user.gid),
    metadata: { guest: people.guests.has(user.gid) },
  };
}

const userMember = (gid: string): Principal => ({ type: 'USER', nativeId: gid });

/** Everyone in the workspace but guests and inactive users. */
export function workspaceMembersGroup(workspaceGid: string, workspaceName: string, people: Population): GroupRecord {
  const members = [...people.active]
    .filter((gid) => !people.guests.has(gid))
    .sort()
    .map(userMember);
  return { nativeId: groupId.workspaceMembers(workspaceGid), name: `${workspaceName} (all members)`, members };
}

/** A team's direct members: active users, without limited-access members (they only see their own projects). */
export function teamGroup(team: WmTeam, memberships: readonly WmTeamMembership[], people: Population): GroupRecord {
  const members = memberships.filter((m) => m.team.gid === team.gid && !m.is_limited_access && people.active.has(m.user.gid)).map((m) => m.user.gid);
  return { nativeId: groupId.team(team.gid), name: team.name, members: [...new Set(members)].sort().map(userMember) };
}

/** Users and teams of a membership list (project or portfolio), as direct members. */
function membersOf(memberships: readonly WmMembership[], people: Population): { users: Set<string>; groups: Set<string> } {
  const users = new Set<string>();
  const groups = new Set<string>();
  for (const m of memberships) {
    if (m.member.resource_type === 'user' && people.active.has(m.member.gid)) users.add(m.member.gid);
    else if (m.member.resource_type === 'team') groups.add(groupId.team(m.member.gid));
  }
  return { users, groups };
}

function groupRecord(nativeId: string, name: string, groups: ReadonlySet<string>, users: ReadonlySet<string>): GroupRecord {
  return { nativeId, name, members: [...[...groups].sort().map((g): Principal => ({ type: 'GROUP', nativeId: g })), ...[...users].sort().map(userMember)] };
}

/**
 * A project's audience as a group: member users, member teams (as sub-groups), what its privacy
 * adds, and the portfolios it inherits access control from (`inheritsFrom`, as sub-groups).
 */
export function projectGroup(
  project: WmProject,
  workspaceGid: string,
  memberships: readonly WmMembership[],
  people: Population,
  inheritsFrom: readonly string[] = [],
): GroupRecord {
  const { users, groups } = membersOf(memberships, people);
  // Public projects reach every workspace member (guests are not members) and, like team-only
  // projects, the members of their own team (guests on that team included): reference §6 table.
  if (project.privacy_setting === 'public_to_workspace') groups.add(groupId.workspaceMembers(workspaceGid));
  if (project.privacy_setting !== 'private' && project.team) groups.add(groupId.team(project.team.gid));
  for (const portfolio of inheritsFrom) groups.add(groupId.portfolio(portfolio));
  return groupRecord(groupId.project(project.gid), project.name, groups, users);
}

/**
 * A portfolio whose access control some project inherits: its member users and member teams.
 * Its privacy setting adds nothing: only members gain access through inheritance (§5.15).
 */
export function portfolioGroup(portfolio: { gid: string; name?: string }, memberships: readonly WmMembership[], people: Population): GroupRecord {
  const { users, groups } = membersOf(memberships, people);
  return groupRecord(groupId.portfolio(portfolio.gid), portfolio.name ?? `Portfolio ${portfolio.gid}`, groups, users);
}

/** Team gids a project's group refers to (its team when the privacy setting includes it, and member teams). */
export function teamsReferenced(project: WmProject, memberships: readonly WmMembership[]): string[] {
  const teams = memberships.filter((m) => m.member.resource_type === 'team').map((m) => m.member.gid);
  if (project.privacy_setting !== 'private' && project.team) teams.push(project.team.gid);
  return teams;
}

/** Who may see a task (and its comments and attachments): its projects' groups, its assignee and followers. */
export function taskAccess(task: Pick<WmTask, 'projects' | 'assignee' | 'followers'>, people: Population): AccessEntry[] {
  const entries: AccessEntry[] = task.projects.map((p) => ({ type: 'GROUP', nativeId: groupId.project(p.gid) }));
  const users = new Set<string>();
  if (task.assignee && people.active.has(task.assignee.gid)) users.add(task.assignee.gid);
  for (const f of task.followers) if (people.active.has(f.gid)) users.add(f.gid);
  return [...entries, ...[...users].sort().map(userMember)];
}

const MIME_BY_EXTENSION: Record<string, SupportedMimeType> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.txt': 'text/plain',
};

/** The MIME type of an attachment the platform can index, by its name; undefined for the rest. */
export function attachmentMimeType(attachment: WmAttachment): SupportedMimeType | undefined {
  return MIME_BY_EXTENSION[path.extname(attachment.name).toLowerCase()];
}

/**
 * Whether an attachment becomes a file: a supported type stored by the service itself (`host:
 * asana`, the only host whose bytes come through a `download_url`). Links to other hosts are
 * only listed on the task's page.
 */
export function isSyncedAttachment(attachment: WmAttachment): boolean {
  return attachment.host === 'asana' && attachmentMimeType(attachment) !== undefined;
}

/**
 * The source version of an attachment's bytes: attachments cannot be edited in place (a new
 * upload is a new gid), so gid + size + creation time change exactly when the bytes do, and
 * unchanged attachments are never downloaded again.
 */
export function attachmentVersion(attachment: WmAttachment): string {
  return `${attachment.gid}:${attachment.size ?? ''}:${attachment.created_at ?? ''}`;
}

/** An attachment's file: its task's (or project's) access list, bytes opened on demand. */
export function attachmentFile(
  attachment: WmAttachment,
  parent: { nativeId: string; name: string; url: string },
  access: readonly AccessEntry[],
  open: () => Promise<Readable>,
): FileRecord {
  const mimeType = attachmentMimeType(attachment);
  if (!mimeType) throw new TypeError(`attachment ${attachment.gid} (${attachment.name}) is not of a supported type`);
  return {
    nativeId: fileId.attachment(attachment.gid),
    name: attachment.name,
    externalUrl: attachment.permanent_url || attachment.view_url || parent.url,
    mimeType,
    content: { kind: 'binary', open, version: attachmentVersion(attachment) },
    access,
    ...(attachment.created_at ? { createdAt: attachment.created_at } : {}),
    parent: { nativeId: parent.nativeId, name: parent.name },
  };
}

/** The link a task's page gives for an attachment: where a reader can open it. */
export function attachmentLink(attachment: WmAttachment, fallback: string): string {
  return attachment.view_url || attachment.permanent_url || fallback;
}

export interface TaskPage {
  task: WmTask;
  projects: ReadonlyArray<{ name: string; permalink?: string }>;
  parent?: { name: string; permalink: string };
  subtasks: ReadonlyArray<{ name: string; permalink: string; completed?: boolean }>;
  comments: readonly WmStory[];
  attachments: ReadonlyArray<{ name: string; url: string }>;
  userNames: ReadonlyMap<string, string>;
}

let cachedTemplate: { file: string; text: string } | undefined;
function template(file: string): string {
  if (cachedTemplate?.file !== file) cachedTemplate = { file, text: fs.readFileSync(file, 'utf8') };
  return cachedTemplate.text;
}

/**
 * The task as an HTML article, from `templates/html/task.mustache`. Every value is escaped; notes
 * are plain text split into paragraphs (the API's rich text is not passed through). Only stable
 * fields go in, so re-rendering an unchanged task gives the same bytes.
 */
export function renderTaskHtml(page: TaskPage, templateFile: string): string {
  const { task } = page;
  const name = (ref: { gid: string; name?: string } | null | undefined) => (ref ? (ref.name ?? page.userNames.get(ref.gid) ?? ref.gid) : undefined);
  const view = {
    name: task.name,
    projects: page.projects.map((p, i) => ({ ...p, last: i === page.projects.length - 1 })),
    assignee: name(task.assignee),
    due: task.due_on ?? undefined,
    completed: task.completed === true,
    parent: page.parent,
    paragraphs: (task.notes ?? '')
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean),
    customFields: (task.custom_fields ?? []).filter((f) => f.enabled !== false && f.display_value).map((f) => ({ name: f.name, value: f.display_value })),
    subtasks: page.subtasks,
    comments: page.comments
      .filter((s) => s.type === 'comment')
      .map((s) => ({ author: name(s.created_by) ?? 'someone', date: s.created_at.slice(0, 10), text: s.text })),
    attachments: page.attachments,
  };
  return Mustache.render(template(templateFile), view, {}, { escape: escapeHtml });
}

/**
 * A task's file: its page as HTML, its access list, and where it sits (its parent task, else its
 * first project). `creator` is the creator's email when known, else their name.
 */
export function taskFile(task: WmTask, html: string, access: readonly AccessEntry[], workspaceGid: string, creator?: string): FileRecord {
  const project = task.projects[0];
  const parent = task.parent
    ? { nativeId: fileId.task(task.parent.gid), name: task.parent.name ?? task.parent.gid }
    : project
      ? { nativeId: groupId.project(project.gid), name: project.name ?? project.gid, path: `/${project.name ?? project.gid}` }
      : undefined;
  return {
    nativeId: fileId.task(task.gid),
    name: task.name.trim() === '' ? `Untitled task ${task.gid}` : task.name,
    externalUrl: task.permalink_url,
    mimeType: 'text/html',
    content: { kind: 'html', html },
    access,
    ...(task.created_at ? { createdAt: task.created_at } : {}),
    ...(creator ? { createdBy: creator } : {}),
    ...(parent ? { parent } : {}),
    customAttributes: taskAttributes(task, workspaceGid),
  };
}

/** Custom attributes for a task file: string values only, as the contract requires. */
export function taskAttributes(task: WmTask, workspaceGid: string): Record<string, string> {
  return {
    workspace: workspaceGid,
    kind: task.parent ? 'subtask' : 'task',
    completed: String(task.completed === true),
    ...(task.due_on ? { due_on: task.due_on } : {}),
  };
}

/** Gids are decimal strings: order them numerically. */
export function compareGids(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
