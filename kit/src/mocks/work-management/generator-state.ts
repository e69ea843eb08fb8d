/**
 * The state the organization generator threads through its families (people, projects, tasks):
 * the store, the shape, the random stream, and what earlier steps made that later ones draw on.
 */
import type { CustomField, Gid, Project, Team, User, WorkManagementStore } from './model';
import { slug } from './names';
import type { Random } from './random';

export interface OrgShape {
  /** Tasks in all, subtasks included (at least 12). */
  tasks: number;
  /** Users of the organization, guests included (at least 12). */
  users: number;
  teams: number;
  /** Projects of the organization (plus a few in the personal workspace). */
  projects: number;
  guestRatio: number;
  inactiveRatio: number;
  /** Share of team memberships that are limited-access (they grant nothing through the team). */
  limitedAccessRatio: number;
  subtaskRatio: number;
  multiHomeRatio: number;
  /** Share of top-level tasks in no project (always assigned: they live in My Tasks). */
  noProjectRatio: number;
  attachmentRatio: number;
  /** Share of attachments that are links to another host (no download_url). */
  externalAttachmentRatio: number;
  commentsPerTask: number;
  /** Followers beyond the creator and the assignee, on average. */
  extraFollowersPerTask: number;
  archivedRatio: number;
  /** Shares of public_to_workspace, private_to_team and private projects. */
  privacyMix: [number, number, number];
  /** Share of private projects shared with one or two more teams through memberships. */
  teamSharedRatio: number;
  customFieldValueRatio: number;
  portfolios: number;
  goals: number;
  /** Share of portfolio items whose project inherits the portfolio's access control. */
  portfolioAccessInheritanceRatio: number;
  /** Adds a second, non-organization workspace (no teams, no guests). */
  personalWorkspace: boolean;
}

export interface ProjectInfo {
  project: Project;
  sections: Gid[];
  /** Users likely to create, own and comment on its tasks: members and team members. */
  people: Gid[];
  fields: Gid[];
}

/** Generated timestamps fall in this window, so output never depends on the clock. */
export const GENERATION_START = Date.UTC(2024, 0, 1);
export const GENERATION_END = Date.UTC(2025, 5, 1);
export const DAY = 86_400_000;

export const SECTION_NAMES = ['To do', 'In progress', 'Review', 'Done', 'Backlog', 'Blocked'];
export const COLORS = [
  'dark-pink',
  'dark-green',
  'dark-blue',
  'dark-red',
  'dark-teal',
  'dark-brown',
  'dark-orange',
  'dark-purple',
  'dark-warm-gray',
  'light-pink',
  'light-green',
  'light-blue',
];
export const KINDS = ['pdf', 'docx', 'pptx', 'txt'] as const;
export const PROJECT_STATUS_TYPES = ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped'];
export const GOAL_STATUS_TYPES = ['on_track', 'at_risk', 'off_track', 'achieved', 'partial', 'missed', 'dropped'];

export class GenerationState {
  org!: Gid;
  personal: Gid | null = null;
  readonly orgUsers: User[] = [];
  readonly activeMembers: Gid[] = [];
  readonly guests: Gid[] = [];
  readonly inactive: Gid[] = [];
  readonly personalUsers: Gid[] = [];
  readonly teams: Team[] = [];
  readonly teamMembers = new Map<Gid, Gid[]>();
  readonly projects: ProjectInfo[] = [];
  readonly personalProjects: ProjectInfo[] = [];
  readonly fieldsByType = new Map<string, CustomField>();
  readonly personalFields: CustomField[] = [];
  customTypes: Gid[] = [];
  tags: Gid[] = [];
  projectWeights: number[] = [];
  emailsUsed = new Set<string>();

  constructor(
    readonly store: WorkManagementStore,
    readonly shape: OrgShape,
    readonly rng: Random,
  ) {}

  email(first: string, last: string, domain: string): string {
    const base = `${slug(first)}.${slug(last)}`;
    let email = `${base}@${domain}`;
    for (let n = 2; this.emailsUsed.has(email); n++) email = `${base}${n}@${domain}`;
    this.emailsUsed.add(email);
    return email;
  }

  time(from: number, to: number): number {
    return Math.floor(from + this.rng.next() * Math.max(0, to - from));
  }
}
