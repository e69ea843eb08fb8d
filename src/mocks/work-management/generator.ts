/**
 * A deterministic generator of a realistic organization: the same seed and size always give the
 * same gids, names, memberships, tasks and documents. Sizes run from a dozen tasks to 100,000;
 * the first objects are scripted so that every feature the adapter and the oracle care about
 * exists even in the smallest organization (guests, inactive users, limited-access team members,
 * every privacy setting, team-shared and archived projects, multi-homed tasks, tasks in no
 * project, nested subtasks, every custom field type, disabled options and values, every
 * document kind, links, comments, status updates), then the rest is drawn at random.
 */
import {
  type CustomField,
  type Gid,
  type PrivacySetting,
  type Project,
  type StoredValue,
  type Task,
  type Team,
  type User,
  WorkManagementStore,
  isoDate,
} from './model';
import { FIRST_NAMES, LAST_NAMES, PROJECT_TOPICS, TEAM_NAMES, personName, slug, taskName } from './names';
import { Random } from './random';
import { roundToPrecision } from './rules/custom-fields';

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

export type SizePreset = 'tiny' | 'small' | 'medium' | 'large' | 'xlarge';
export const SIZE_PRESETS: Record<SizePreset, number> = { tiny: 24, small: 500, medium: 5_000, large: 20_000, xlarge: 100_000 };

export type SizeSpec = SizePreset | number | Partial<OrgShape>;

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));

/** The full shape for a preset name, a task count or a partial shape (missing knobs derived). */
export function resolveShape(size: SizeSpec = 'small'): OrgShape {
  const partial: Partial<OrgShape> = typeof size === 'string' ? { tasks: SIZE_PRESETS[size] } : typeof size === 'number' ? { tasks: size } : size;
  if (typeof size === 'string' && !(size in SIZE_PRESETS)) throw new Error(`unknown size ${size}: use ${Object.keys(SIZE_PRESETS).join(', ')} or a number of tasks`);
  const tasks = Math.max(12, Math.round(partial.tasks ?? SIZE_PRESETS.small));
  const users = Math.max(12, Math.round(partial.users ?? clamp(Math.round(4 * Math.sqrt(tasks)), 12, 2500)));
  const teams = Math.max(3, Math.round(partial.teams ?? clamp(Math.round(users / 12), 3, 80)));
  const projects = Math.max(6, Math.round(partial.projects ?? clamp(Math.round(tasks / 60), 6, 2500)));
  return {
    guestRatio: 0.08,
    inactiveRatio: 0.05,
    limitedAccessRatio: 0.03,
    subtaskRatio: 0.15,
    multiHomeRatio: 0.05,
    noProjectRatio: 0.04,
    attachmentRatio: 0.08,
    externalAttachmentRatio: 0.1,
    commentsPerTask: 1.2,
    extraFollowersPerTask: 0.8,
    archivedRatio: 0.1,
    privacyMix: [0.45, 0.25, 0.3],
    teamSharedRatio: 0.35,
    customFieldValueRatio: 0.5,
    portfolios: Math.max(1, Math.round(projects / 50)),
    goals: Math.max(1, Math.round(teams / 3)),
    portfolioAccessInheritanceRatio: 0,
    personalWorkspace: true,
    ...partial,
    tasks,
    users,
    teams,
    projects,
  };
}

export interface GenerateOptions {
  seed: string | number;
  size?: SizeSpec;
  /** The store's clock (used after generation); generated timestamps are fixed, not clock-based. */
  now?: () => number;
}

export interface GeneratedOrganization {
  store: WorkManagementStore;
  shape: OrgShape;
  organization: Gid;
  personalWorkspace: Gid | null;
  serviceAccount: Gid;
}

/** Generated timestamps fall in this window, so output never depends on the clock. */
export const GENERATION_START = Date.UTC(2024, 0, 1);
export const GENERATION_END = Date.UTC(2025, 5, 1);
const DAY = 86_400_000;

const SECTION_NAMES = ['To do', 'In progress', 'Review', 'Done', 'Backlog', 'Blocked'];
const COLORS = ['dark-pink', 'dark-green', 'dark-blue', 'dark-red', 'dark-teal', 'dark-brown', 'dark-orange', 'dark-purple', 'dark-warm-gray', 'light-pink', 'light-green', 'light-blue'];
const KINDS = ['pdf', 'docx', 'pptx', 'txt'] as const;
const PROJECT_STATUS_TYPES = ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped'];
const GOAL_STATUS_TYPES = ['on_track', 'at_risk', 'off_track', 'achieved', 'partial', 'missed', 'dropped'];

export function generateOrganization(options: GenerateOptions): GeneratedOrganization {
  const shape = resolveShape(options.size);
  const seed = String(options.seed);
  const store = new WorkManagementStore({ seed, now: options.now ?? (() => Date.now()) });
  const result = store.silently(() => new Generator(store, shape, new Random(`${seed}/org`)).run());
  return { store, shape, ...result };
}

interface ProjectInfo {
  project: Project;
  sections: Gid[];
  /** Users likely to create, own and comment on its tasks: members and team members. */
  people: Gid[];
  fields: Gid[];
}

class Generator {
  private org!: Gid;
  private personal: Gid | null = null;
  private readonly orgUsers: User[] = [];
  private readonly activeMembers: Gid[] = [];
  private readonly guests: Gid[] = [];
  private readonly inactive: Gid[] = [];
  private readonly personalUsers: Gid[] = [];
  private readonly teams: Team[] = [];
  private readonly teamMembers = new Map<Gid, Gid[]>();
  private readonly projects: ProjectInfo[] = [];
  private readonly personalProjects: ProjectInfo[] = [];
  private readonly fieldsByType = new Map<string, CustomField>();
  private readonly personalFields: CustomField[] = [];
  private customTypes: Gid[] = [];
  private tags: Gid[] = [];
  private projectWeights: number[] = [];
  private emailsUsed = new Set<string>();

  constructor(
    private readonly store: WorkManagementStore,
    private readonly shape: OrgShape,
    private readonly rng: Random,
  ) {}

  run(): Omit<GeneratedOrganization, 'store' | 'shape'> {
    const s = this.store;
    const org = s.addWorkspace({ name: 'Northwind Labs', isOrganization: true, emailDomains: ['northwind.example'] });
    this.org = org.gid;
    if (this.shape.personalWorkspace) this.personal = s.addWorkspace({ name: 'Side Projects', isOrganization: false }).gid;
    const serviceAccount = s.addUser({ name: 'Content Gateway Service Account', email: 'service-account@northwind.example', isServiceAccount: true });
    this.users();
    this.teamsAndMemberships();
    this.customFields();
    this.customTypes = ['Bug', 'Request', 'Incident'].map((name) => s.addCustomType({ workspace: this.org, name }).gid);
    this.tags = ['urgent', 'customer', 'blocked', 'quick-win', 'q3', 'tech-debt'].map((name, i) => s.addTag({ workspace: this.org, name, color: COLORS[i % COLORS.length] as string, createdAt: GENERATION_START }).gid);
    this.projectsOfOrg();
    this.projectsOfPersonalWorkspace();
    this.portfoliosAndGoals();
    this.tasks();
    // Last, so templates take no gid that other records had before templates existed.
    this.projectTemplates();
    return { organization: this.org, personalWorkspace: this.personal, serviceAccount: serviceAccount.gid };
  }

  /** Two templates: a launch with two date variables and two roles, an onboarding with one date. */
  private projectTemplates(): void {
    const [first, second] = this.teams;
    const ownerOf = (team: Team | undefined): Gid | null => this.teamMembers.get(team?.gid ?? '')?.find((u) => this.activeMembers.includes(u)) ?? null;
    if (first) {
      this.store.addProjectTemplate({
        team: first.gid,
        name: 'Product launch',
        description: 'Plan, build and ship a launch: brief, design, release and follow-up.',
        owner: ownerOf(first),
        requestedDates: [
          { gid: '1', name: 'Start Date', description: 'When the work starts.' },
          { gid: '2', name: 'Launch Date', description: 'The day the product ships.' },
        ],
        requestedRoles: [
          { gid: '1', name: 'Launch lead' },
          { gid: '2', name: 'Designer' },
        ],
        sections: [
          { name: 'Plan', tasks: [{ name: 'Write the launch brief', dueOffsetDays: 2, role: '1' }, { name: 'Kick-off meeting', dueOffsetDays: 3, role: null }] },
          { name: 'Build', tasks: [{ name: 'Design the landing page', dueOffsetDays: 10, role: '2' }, { name: 'Release checklist', dueOffsetDays: 20, role: '1' }] },
          { name: 'Follow up', tasks: [{ name: 'Launch retrospective', dueOffsetDays: null, role: '1' }] },
        ],
      });
    }
    if (second) {
      this.store.addProjectTemplate({
        team: second.gid,
        name: 'New hire onboarding',
        description: 'The first two weeks of a new colleague.',
        owner: ownerOf(second),
        public: false,
        requestedDates: [{ gid: '1', name: 'Start Date', description: 'The first working day.' }],
        requestedRoles: [{ gid: '1', name: 'Buddy' }],
        sections: [{ name: 'First week', tasks: [{ name: 'Laptop and accounts', dueOffsetDays: 0, role: null }, { name: 'Lunch with the buddy', dueOffsetDays: 1, role: '1' }] }],
      });
    }
  }

  private email(first: string, last: string, domain: string): string {
    const base = `${slug(first)}.${slug(last)}`;
    let email = `${base}@${domain}`;
    for (let n = 2; this.emailsUsed.has(email); n++) email = `${base}${n}@${domain}`;
    this.emailsUsed.add(email);
    return email;
  }

  private time(from: number, to: number): number {
    return Math.floor(from + this.rng.next() * Math.max(0, to - from));
  }

  private users(): void {
    const n = this.shape.users;
    const guests = Math.max(2, Math.round(n * this.shape.guestRatio));
    const inactive = Math.max(2, Math.round(n * this.shape.inactiveRatio));
    for (let i = 0; i < n; i++) {
      // Scripted: the first users are plain active members; the last `guests` are guests; one guest is inactive.
      const isGuest = i >= n - guests;
      const isActive = !(i >= 3 && i < 3 + inactive - 1) && i !== n - 1;
      const { first, last } = i < FIRST_NAMES.length * 2 ? { first: FIRST_NAMES[i % FIRST_NAMES.length] as string, last: LAST_NAMES[(i * 7) % LAST_NAMES.length] as string } : personName(this.rng);
      const user = this.store.addUser({ name: `${first} ${last}`, email: this.email(first, last, isGuest ? 'partner-agency.example' : 'northwind.example') });
      this.store.addWorkspaceMembership({ user: user.gid, workspace: this.org, isActive, isGuest, isAdmin: i === 0, createdAt: this.time(GENERATION_START - 400 * DAY, GENERATION_START) });
      this.orgUsers.push(user);
      if (isGuest) this.guests.push(user.gid);
      else if (isActive) this.activeMembers.push(user.gid);
      if (!isActive) this.inactive.push(user.gid);
    }
    if (this.personal) {
      // A few organization members also use a personal workspace, plus one outside friend.
      for (const u of this.activeMembers.slice(0, Math.min(6, this.activeMembers.length))) {
        this.store.addWorkspaceMembership({ user: u, workspace: this.personal, isActive: true, createdAt: GENERATION_START });
        this.personalUsers.push(u);
      }
      const friend = this.store.addUser({ name: 'Robin Outsider', email: this.email('Robin', 'Outsider', 'mail.example') });
      this.store.addWorkspaceMembership({ user: friend.gid, workspace: this.personal, isActive: true, createdAt: GENERATION_START });
      this.personalUsers.push(friend.gid);
      const gone = this.store.addUser({ name: 'Sam Former', email: this.email('Sam', 'Former', 'mail.example') });
      this.store.addWorkspaceMembership({ user: gone.gid, workspace: this.personal, isActive: false, createdAt: GENERATION_START });
      this.personalUsers.push(gone.gid);
    }
  }

  private teamsAndMemberships(): void {
    const s = this.store;
    for (let i = 0; i < this.shape.teams; i++) {
      const base = TEAM_NAMES[i % TEAM_NAMES.length] as string;
      const name = i < TEAM_NAMES.length ? base : `${base} ${Math.floor(i / TEAM_NAMES.length) + 1}`;
      const visibility = i === 0 ? 'public' : i === 1 ? 'secret' : i === 2 ? 'request_to_join' : this.rng.chance(0.15) ? 'secret' : this.rng.chance(0.2) ? 'request_to_join' : 'public';
      const team = s.addTeam({ workspace: this.org, name, visibility, description: `The ${name} team.` });
      this.teams.push(team);
      this.teamMembers.set(team.gid, []);
    }
    const join = (team: Team, user: Gid, opts: { isGuest?: boolean; isLimitedAccess?: boolean; isAdmin?: boolean } = {}): void => {
      const before = s.teamMembershipsByTeam.get(team.gid)?.length ?? 0;
      s.addTeamMembership({ team: team.gid, user, ...opts });
      if ((s.teamMembershipsByTeam.get(team.gid)?.length ?? 0) > before && !opts.isLimitedAccess) this.teamMembers.get(team.gid)?.push(user);
    };
    // Every non-guest user (inactive ones included: deactivation keeps memberships) joins 1–3 teams.
    const members = this.orgUsers.filter((u) => !this.guests.includes(u.gid));
    members.forEach((u, i) => {
      const count = this.rng.int(1, 3);
      const first = this.teams[i % this.teams.length] as Team;
      join(first, u.gid, { isAdmin: i < this.teams.length });
      for (const t of this.rng.sample(this.teams, count - 1)) join(t, u.gid, { isLimitedAccess: this.rng.chance(this.shape.limitedAccessRatio) });
    });
    // Scripted: a limited-access member of team 0 who belongs to no other way into its projects.
    const team0 = this.teams[0] as Team;
    const inTeam0 = new Set(s.list(s.teamMembershipsByTeam.get(team0.gid), s.teamMemberships).map((m) => m.user));
    const lam = [...members].reverse().find((u) => !inTeam0.has(u.gid));
    if (lam) s.addTeamMembership({ team: team0.gid, user: lam.gid, isLimitedAccess: true });
    // Guests: half of them (the first always) are added to one team.
    this.guests.forEach((g, i) => {
      if (i === 0 || this.rng.chance(0.5)) join(this.rng.pick(this.teams), g, { isGuest: true });
    });
  }

  private customFields(): void {
    const s = this.store;
    const creator = this.activeMembers[0] ?? null;
    const defs: Array<Parameters<WorkManagementStore['addCustomField']>[0]> = [
      { workspace: this.org, name: 'Priority', type: 'enum', enumOptions: [{ name: 'High', color: 'red' }, { name: 'Medium', color: 'yellow' }, { name: 'Low', color: 'green' }, { name: 'Urgent (retired)', color: 'purple', enabled: false }] },
      { workspace: this.org, name: 'Labels', type: 'multi_enum', enumOptions: [{ name: 'Frontend', color: 'blue' }, { name: 'Backend', color: 'cool-gray' }, { name: 'Docs', color: 'green' }, { name: 'Legacy', color: 'none', enabled: false }] },
      { workspace: this.org, name: 'Estimate (hours)', type: 'number', precision: 1 },
      { workspace: this.org, name: 'Budget (EUR)', type: 'number', precision: 2 },
      { workspace: this.org, name: 'Customer', type: 'text' },
      { workspace: this.org, name: 'Review date', type: 'date' },
      { workspace: this.org, name: 'Reviewers', type: 'people' },
      { workspace: this.org, name: 'Related work', type: 'reference', inputRestrictions: ['task', 'project'] },
      { workspace: this.org, name: 'Stage', type: 'enum', enumOptions: [{ name: 'Idea' }, { name: 'Planned' }, { name: 'Building' }, { name: 'Shipped' }] },
    ];
    for (const def of defs) {
      const field = s.addCustomField({ ...def, createdBy: creator, description: `${def.name} of the work item.` });
      if (!this.fieldsByType.has(field.type)) this.fieldsByType.set(field.type, field);
      else this.fieldsByType.set(`${field.type}:${field.gid}`, field);
    }
    if (this.personal) {
      this.personalFields.push(s.addCustomField({ workspace: this.personal, name: 'Effort', type: 'number', precision: 0 }));
      this.personalFields.push(s.addCustomField({ workspace: this.personal, name: 'Mood', type: 'enum', enumOptions: [{ name: 'Fun' }, { name: 'Chore' }] }));
    }
  }

  private orgFields(): CustomField[] {
    return [...this.fieldsByType.values()];
  }

  private projectsOfOrg(): void {
    const s = this.store;
    const fields = this.orgFields();
    for (let i = 0; i < this.shape.projects; i++) {
      // Scripted first five: public, team-only, private, private shared with other teams, archived.
      const privacy: PrivacySetting =
        i === 0 ? 'public_to_workspace' : i === 1 ? 'private_to_team' : i === 2 || i === 3 ? 'private' : (['public_to_workspace', 'private_to_team', 'private'] as const)[this.rng.weighted(this.shape.privacyMix)] ?? 'private';
      const team = (i < 4 ? this.teams[i % this.teams.length] : this.rng.pick(this.teams)) as Team;
      const teamPeople = (this.teamMembers.get(team.gid) ?? []).filter((u) => !this.guests.includes(u));
      const owner = teamPeople.find((u) => this.activeMembers.includes(u)) ?? (this.activeMembers[i % this.activeMembers.length] as Gid);
      const topic = PROJECT_TOPICS[i % PROJECT_TOPICS.length] as string;
      const archived = i === 4 || (i > 4 && this.rng.chance(this.shape.archivedRatio));
      const createdAt = this.time(GENERATION_START - 200 * DAY, GENERATION_START + 100 * DAY);
      const project = s.addProject({
        workspace: this.org,
        team: team.gid,
        name: i < PROJECT_TOPICS.length ? topic : `${topic} ${Math.floor(i / PROJECT_TOPICS.length) + 1}`,
        privacySetting: privacy,
        archived,
        owner,
        color: this.rng.pick(COLORS),
        createdAt,
        notes: `${topic}: goals, owners and the plan for ${team.name}.`,
      });
      // User members: the owner plus a few team members (or other people for private projects).
      const extra = this.rng.sample(teamPeople.length > 1 ? teamPeople : this.activeMembers, this.rng.int(1, 5));
      for (const u of extra) s.addMembership({ parent: project.gid, member: u, accessLevel: this.rng.pick(['editor', 'editor', 'commenter', 'viewer'] as const) });
      if (i === 2 || i === 3 || this.rng.chance(0.15)) {
        const guest = i === 2 ? this.guests[0] : this.rng.pick(this.guests);
        if (guest) s.addMembership({ parent: project.gid, member: guest, accessLevel: 'commenter' });
      }
      if (i === 3 || (privacy === 'private' && this.rng.chance(this.shape.teamSharedRatio))) {
        const others = this.teams.filter((t) => t.gid !== team.gid);
        for (const t of this.rng.sample(others, i === 3 ? 1 : this.rng.int(1, 2))) s.addMembership({ parent: project.gid, member: t.gid, accessLevel: 'editor' });
      }
      // Followers ⊂ members.
      const users = s.projectUserMembers(project.gid);
      project.followers = [owner, ...this.rng.sample(users.filter((u) => u !== owner), this.rng.int(0, 2))];
      const sections = this.rng.sample(SECTION_NAMES, this.rng.int(2, 5)).map((name) => s.addSection({ project: project.gid, name, createdAt }).gid);
      const projectFields = i === 0 ? fields : this.rng.sample(fields, this.rng.int(0, 4));
      // Project 1 carries Priority (so values move in and out with tasks); project 2 deliberately does not.
      if (i === 1 && !projectFields.some((f) => f.type === 'enum')) projectFields.push(this.fieldsByType.get('enum') as CustomField);
      if (i === 2) projectFields.splice(0, projectFields.length);
      for (const f of projectFields) s.addCustomFieldSetting({ field: f.gid, parent: project.gid, isImportant: this.rng.chance(0.6) });
      const people = [...new Set([...users, ...(this.teamMembers.get(team.gid) ?? [])])];
      this.projects.push({ project, sections, people, fields: projectFields.map((f) => f.gid) });
      this.statusUpdates(project.gid, 'project', owner, createdAt, i === 0);
      if (i === 0 || this.rng.chance(0.05)) s.addAttachment({ parent: project.gid, name: `${slug(project.name)}-brief.pdf`, kind: 'pdf', createdAt, createdBy: owner });
    }
    // Bigger and smaller projects: a long tail of weights.
    this.projectWeights = this.projects.map((p, i) => (p.project.archived ? 0.3 : 1) * (i < 5 ? 2 : 0.2 + this.rng.next() ** 3 * 4));
  }

  private statusUpdates(parent: Gid, kind: 'project' | 'portfolio' | 'goal', author: Gid, after: number, force: boolean): void {
    const s = this.store;
    const count = force ? 2 : this.rng.chance(0.4) ? this.rng.int(1, 2) : 0;
    for (let k = 0; k < count; k++) {
      const type = this.rng.pick(kind === 'goal' ? GOAL_STATUS_TYPES : PROJECT_STATUS_TYPES);
      s.addStatusUpdate({ parent, statusType: type, title: `Status ${isoDate(after + (k + 1) * 14 * DAY)}`, text: `We are ${type.replace('_', ' ')}.`, author, createdAt: after + (k + 1) * 14 * DAY });
    }
    if (kind === 'project' && (force || this.rng.chance(0.1))) {
      s.addProjectStatus({ project: parent, color: this.rng.pick(['green', 'yellow', 'red', 'blue'] as const), title: 'Weekly status', text: 'Legacy status report.', author, createdAt: after + DAY });
    }
  }

  private projectsOfPersonalWorkspace(): void {
    if (!this.personal) return;
    const s = this.store;
    const count = Math.max(2, Math.round(this.shape.projects / 40));
    for (let i = 0; i < count; i++) {
      const owner = this.personalUsers[i % this.personalUsers.length] as Gid;
      const createdAt = this.time(GENERATION_START, GENERATION_START + 100 * DAY);
      const project = s.addProject({
        workspace: this.personal,
        team: null,
        name: ['Garden plan', 'Book club', 'Home renovation', 'Marathon training', 'Family trip'][i % 5] as string,
        privacySetting: i % 2 === 0 ? 'public_to_workspace' : 'private',
        owner,
        createdAt,
      });
      for (const u of this.rng.sample(this.personalUsers.filter((u) => u !== owner), 2)) s.addMembership({ parent: project.gid, member: u });
      project.followers = [owner];
      const sections = ['Ideas', 'Doing', 'Done'].map((name) => s.addSection({ project: project.gid, name, createdAt }).gid);
      const fields = i === 0 ? this.personalFields : [];
      for (const f of fields) s.addCustomFieldSetting({ field: f.gid, parent: project.gid });
      this.personalProjects.push({ project, sections, people: s.projectUserMembers(project.gid), fields: fields.map((f) => f.gid) });
    }
  }

  private portfoliosAndGoals(): void {
    const s = this.store;
    const fields = this.orgFields();
    for (let i = 0; i < this.shape.portfolios; i++) {
      const owner = this.activeMembers[(i * 3) % this.activeMembers.length] as Gid;
      const portfolio = s.addPortfolio({ workspace: this.org, name: `${['Company bets', 'Customer programs', 'Infrastructure', 'Go to market'][i % 4]}${i >= 4 ? ` ${i}` : ''}`, owner, createdAt: GENERATION_START + i * DAY });
      for (const u of this.rng.sample(this.activeMembers, 2)) s.addMembership({ parent: portfolio.gid, member: u, accessLevel: 'viewer' });
      if (this.rng.chance(0.5)) s.addMembership({ parent: portfolio.gid, member: this.rng.pick(this.teams).gid, accessLevel: 'viewer' });
      const items = this.rng.sample(this.projects, this.rng.int(2, Math.min(12, this.projects.length)));
      for (const item of items) {
        portfolio.items.push(item.project.gid);
        s.addProjectPortfolioSetting({ project: item.project.gid, portfolio: portfolio.gid, isAccessControlInherited: this.rng.chance(this.shape.portfolioAccessInheritanceRatio) });
      }
      for (const f of this.rng.sample(fields, 2)) s.addCustomFieldSetting({ field: f.gid, parent: portfolio.gid });
      this.statusUpdates(portfolio.gid, 'portfolio', owner, GENERATION_START, i === 0);
    }
    for (let i = 0; i < this.shape.goals; i++) {
      const team = i === 0 ? null : this.rng.pick(this.teams).gid;
      const owner = this.activeMembers[(i * 5) % this.activeMembers.length] as Gid;
      const goal = s.addGoal({ workspace: this.org, name: ['Grow revenue 20%', 'Ship firmware 5', 'Halve support backlog', 'Hire 10 engineers', 'Reach SOC 2'][i % 5] as string, team, owner, createdAt: GENERATION_START });
      this.statusUpdates(goal.gid, 'goal', owner, GENERATION_START, i === 0);
    }
  }

  private randomValue(field: CustomField, task: Task, allowDisabledOption: boolean): StoredValue {
    const s = this.store;
    const options = s.list(field.enumOptions, s.enumOptions).filter((o) => o.enabled || allowDisabledOption);
    switch (field.type) {
      case 'text':
        return { type: 'text', text: `${this.rng.pick(LAST_NAMES)} ${this.rng.pick(['GmbH', 'Lda', 'Inc.', 'BV', 'SA'])}` };
      case 'number':
        return { type: 'number', number: roundToPrecision(this.rng.next() * 200, field.precision) };
      case 'enum':
        return { type: 'enum', option: this.rng.pick(options).gid };
      case 'multi_enum':
        return { type: 'multi_enum', options: this.rng.sample(options, this.rng.int(1, 2)).map((o) => o.gid) };
      case 'date': {
        const t = task.createdAt + this.rng.int(1, 60) * DAY;
        return this.rng.chance(0.3) ? { type: 'date', date: isoDate(t), dateTime: new Date(t).toISOString() } : { type: 'date', date: isoDate(t), dateTime: null };
      }
      case 'people':
        return { type: 'people', users: this.rng.sample(this.activeMembers, this.rng.int(1, 2)) };
      case 'reference': {
        const project = this.rng.pick(this.projects).project.gid;
        return { type: 'reference', refs: [project] };
      }
    }
  }

  private tasks(): void {
    const s = this.store;
    const total = this.shape.tasks;
    const step = (GENERATION_END - 30 * DAY - GENERATION_START) / total;
    const recent: Task[] = [];
    const cumulative: number[] = [];
    let acc = 0;
    for (const w of this.projectWeights) cumulative.push((acc += w));
    const pickProject = (): ProjectInfo => {
      const r = this.rng.next() * acc;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((cumulative[mid] as number) <= r) lo = mid + 1;
        else hi = mid;
      }
      return this.projects[lo] as ProjectInfo;
    };
    const depth = (t: Task): number => s.ancestry(t).length - 1;
    const byGid = new Map<Gid, Task>();
    const orgUserGids = this.orgUsers.map((u) => u.gid);
    let kindCounter = 0;

    for (let i = 0; i < total; i++) {
      const createdAt = Math.floor(GENERATION_START + i * step + this.rng.next() * step * 0.9);
      let workspace = this.org;
      let parent: Task | undefined;
      let homes: ProjectInfo[] = [];
      // Scripted roles for the first twelve tasks (see the file comment), then random draws.
      const p = this.projects;
      switch (i) {
        case 0: homes = [p[0] as ProjectInfo]; break;
        case 1: homes = [p[1] as ProjectInfo]; break;
        case 2: homes = [p[2] as ProjectInfo]; break;
        case 3: homes = [p[3] as ProjectInfo]; break;
        case 4: homes = [p[1] as ProjectInfo, p[2] as ProjectInfo]; break;
        case 5: homes = []; break;
        case 6: parent = byGid.get(s.tasksByWorkspace.get(this.org)?.[0] ?? ''); break;
        case 7: parent = byGid.get(s.tasksByWorkspace.get(this.org)?.[1] ?? ''); homes = [p[2] as ProjectInfo]; break;
        case 8: parent = byGid.get(s.tasksByWorkspace.get(this.org)?.[6] ?? ''); break;
        case 9: homes = [p[4] as ProjectInfo]; break;
        case 10: homes = [p[1] as ProjectInfo]; break;
        case 11:
          if (this.personalProjects[0]) {
            workspace = this.personal as Gid;
            homes = [this.personalProjects[0]];
          } else homes = [p[0] as ProjectInfo];
          break;
        default: {
          if (this.personal && this.personalProjects.length > 0 && this.rng.chance(0.01)) {
            workspace = this.personal;
            homes = [this.rng.pick(this.personalProjects)];
          } else if (recent.length > 0 && this.rng.chance(this.shape.subtaskRatio)) {
            const candidate = this.rng.pick(recent);
            if (depth(candidate) < 4) {
              parent = candidate;
              workspace = candidate.workspace;
              if (workspace === this.org && this.rng.chance(0.2)) homes = [pickProject()];
            } else homes = [pickProject()];
          } else if (this.rng.chance(this.shape.noProjectRatio)) homes = [];
          else {
            homes = [pickProject()];
            if (this.rng.chance(this.shape.multiHomeRatio)) {
              for (let k = this.rng.int(1, 2); k > 0; k--) {
                const other = pickProject();
                if (!homes.includes(other)) homes.push(other);
              }
            }
          }
        }
      }
      const inPersonal = workspace !== this.org;
      const people = homes.length > 0 ? [...new Set(homes.flatMap((h) => h.people))] : inPersonal ? this.personalUsers : this.activeMembers;
      const pool = people.length > 0 ? people : this.activeMembers;
      const createdBy = i === 5 ? (this.activeMembers[1] as Gid) : this.rng.pick(pool);
      // Tasks in no project live in someone's My Tasks: they always have an assignee.
      const noHome = homes.length === 0 && !parent;
      const assignee = noHome || i < 12 || this.rng.chance(0.75) ? (i === 5 ? (this.activeMembers[2] as Gid) : this.rng.pick(pool)) : null;
      const followers = new Set<Gid>([createdBy]);
      if (assignee) followers.add(assignee);
      const everyone = inPersonal ? this.personalUsers : orgUserGids;
      let extra = this.rng.chance(this.shape.extraFollowersPerTask / 2) ? this.rng.int(1, 3) : 0;
      while (extra-- > 0) followers.add(this.rng.pick(everyone));
      if (i === 5 && this.guests[1]) followers.add(this.guests[1]); // a guest collaborator on a private task
      if (i === 2 && this.inactive[0]) followers.add(this.inactive[0]); // an inactive follower
      const completed = i === 11 || (i > 11 && this.rng.chance(0.35));
      const modifiedAt = Math.min(GENERATION_END, createdAt + (this.rng.chance(0.5) ? this.rng.int(0, 60) * DAY : this.rng.int(0, 3600_000)));
      const task = s.addTask({
        workspace,
        name: taskName(this.rng),
        memberships: homes.map((h) => ({ project: h.project.gid, section: this.rng.pick(h.sections) })),
        parent: parent?.gid ?? null,
        assignee,
        followers: [...followers],
        createdBy,
        createdAt,
        modifiedAt,
        completed,
        completedAt: completed ? modifiedAt : null,
        dueOn: this.rng.chance(0.6) ? isoDate(createdAt + this.rng.int(3, 90) * DAY) : null,
        resourceSubtype: this.rng.chance(0.03) ? 'milestone' : this.rng.chance(0.02) ? 'approval' : 'default_task',
        customType: !inPersonal && this.rng.chance(0.1) ? this.rng.pick(this.customTypes) : null,
      });
      byGid.set(task.gid, task);
      if (!inPersonal && this.rng.chance(0.1)) s.addTaskTag(task, this.rng.pick(this.tags));
      if (i === 9 && this.tags[0]) s.addTaskTag(task, this.tags[0]);

      // Custom field values: set on the fields of its projects; scripted disabled ones on task 10.
      const fields = [...new Set(homes.flatMap((h) => h.fields))];
      for (const gid of fields) {
        if (i !== 0 && !this.rng.chance(this.shape.customFieldValueRatio)) continue;
        const field = s.customFields.get(gid) as CustomField;
        task.customFieldValues.push({ field: gid, value: this.randomValue(field, task, this.rng.chance(0.03)) });
      }
      if (i === 10) {
        // A value whose option was disabled since, and a value whose field left the project.
        const priority = this.fieldsByType.get('enum') as CustomField;
        const retired = s.list(priority.enumOptions, s.enumOptions).find((o) => !o.enabled);
        task.customFieldValues = task.customFieldValues.filter((v) => v.field !== priority.gid);
        if (retired) task.customFieldValues.push({ field: priority.gid, value: { type: 'enum', option: retired.gid } });
        const orphan = this.orgFields().find((f) => !fields.includes(f.gid)) ?? this.orgFields()[0];
        if (orphan && !fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: this.randomValue(orphan, task, false) });
      } else if (i > 11 && !inPersonal && this.rng.chance(0.02)) {
        const orphan = this.rng.pick(this.orgFields());
        if (!fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: this.randomValue(orphan, task, false) });
      }

      // Stories: an occasional system story, and comments by the people around the task.
      if (homes.length > 0 && this.rng.chance(0.3)) {
        s.addStory({ target: task.gid, type: 'system', resourceSubtype: 'added_to_project', text: `added to ${homes[0]?.project.name ?? ''}`, createdBy, createdAt: createdAt + 1000, source: 'web' });
      }
      let comments = i < 12 ? 1 + (i % 2) : poisson(this.rng, this.shape.commentsPerTask);
      const commenters = [...followers];
      while (comments-- > 0) {
        s.addStory({ target: task.gid, type: 'comment', resourceSubtype: 'comment_added', createdBy: this.rng.pick(commenters), createdAt: Math.min(GENERATION_END, createdAt + this.rng.int(1, 30 * 24) * 3600_000), source: this.rng.pick(['web', 'web', 'email', 'mobile', 'api'] as const) });
      }

      // Attachments: the first tasks get one of each kind and a link; later ones at random.
      const scriptedKind = i < 4 ? KINDS[i] : undefined;
      const attachCount = scriptedKind || i === 4 ? 1 : this.rng.chance(this.shape.attachmentRatio) ? this.rng.int(1, 2) : 0;
      for (let k = 0; k < attachCount; k++) {
        const link = i === 4 || (i >= 12 && this.rng.chance(this.shape.externalAttachmentRatio));
        const kind = scriptedKind ?? KINDS[kindCounter++ % KINDS.length] ?? 'pdf';
        const base = slug(task.name) || 'file';
        s.addAttachment({
          parent: task.gid,
          name: link ? `${base}-notes` : `${base}${k > 0 ? `-${k + 1}` : ''}.${kind}`,
          host: link ? this.rng.pick(['gdrive', 'dropbox', 'box', 'onedrive'] as const) : 'asana',
          kind: link ? null : kind,
          createdAt: createdAt + 60_000,
          createdBy,
        });
      }

      // Subtask parents come from a window of recent tasks (a ring, so this stays O(1)).
      if (recent.length < 400) recent.push(task);
      else recent[i % 400] = task;
    }
  }
}

/** A small Poisson draw (Knuth); fine for means around 1. */
function poisson(rng: Random, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > limit && k < 10) {
    k++;
    p *= rng.next();
  }
  return k;
}
