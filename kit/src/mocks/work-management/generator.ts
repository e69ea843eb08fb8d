/**
 * A deterministic generator of a realistic organization: the same seed and size always give the
 * same gids, names, memberships, tasks and documents. Sizes run from a dozen tasks to 100,000;
 * the first objects are scripted so that every feature the adapter and the oracle care about
 * exists even in the smallest organization (guests, inactive users, limited-access team members,
 * every privacy setting, team-shared and archived projects, multi-homed tasks, tasks in no
 * project, nested subtasks, every custom field type, disabled options and values, every
 * document kind, links, comments, status updates), then the rest is drawn at random.
 */
import { type Gid, WorkManagementStore } from './model';
import { teamsAndMemberships, users } from './generator-people';
import { customFields, portfoliosAndGoals, projectTemplates, projectsOfOrg, projectsOfPersonalWorkspace } from './generator-projects';
import { COLORS, GENERATION_START, GenerationState, type OrgShape } from './generator-state';
import { tasks } from './generator-tasks';
import { Random } from './random';

export { GENERATION_END, GENERATION_START, type OrgShape } from './generator-state';

export type SizePreset = 'tiny' | 'small' | 'medium' | 'large' | 'xlarge';
export const SIZE_PRESETS: Record<SizePreset, number> = { tiny: 24, small: 500, medium: 5_000, large: 20_000, xlarge: 100_000 };

export type SizeSpec = SizePreset | number | Partial<OrgShape>;

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));

/** The full shape for a preset name, a task count or a partial shape (missing knobs derived). */
export function resolveShape(size: SizeSpec = 'small'): OrgShape {
  const partial: Partial<OrgShape> = typeof size === 'string' ? { tasks: SIZE_PRESETS[size] } : typeof size === 'number' ? { tasks: size } : size;
  if (typeof size === 'string' && !(size in SIZE_PRESETS))
    throw new Error(`unknown size ${size}: use ${Object.keys(SIZE_PRESETS).join(', ')} or a number of tasks`);
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

export function generateOrganization(options: GenerateOptions): GeneratedOrganization {
  const shape = resolveShape(options.size);
  const seed = String(options.seed);
  const store = new WorkManagementStore({ seed, now: options.now ?? (() => Date.now()) });
  const result = store.recorder.silently(() => run(new GenerationState(store, shape, new Random(`${seed}/org`))));
  return { store, shape, ...result };
}

function run(g: GenerationState): Omit<GeneratedOrganization, 'store' | 'shape'> {
  const s = g.store;
  const org = s.people.addWorkspace({ name: 'Northwind Labs', isOrganization: true, emailDomains: ['northwind.example'] });
  g.org = org.gid;
  if (g.shape.personalWorkspace) g.personal = s.people.addWorkspace({ name: 'Side Projects', isOrganization: false }).gid;
  const serviceAccount = s.people.addUser({ name: 'Content Gateway Service Account', email: 'service-account@northwind.example', isServiceAccount: true });
  users(g);
  teamsAndMemberships(g);
  customFields(g);
  g.customTypes = ['Bug', 'Request', 'Incident'].map((name) => s.catalog.addCustomType({ workspace: g.org, name }).gid);
  g.tags = ['urgent', 'customer', 'blocked', 'quick-win', 'q3', 'tech-debt'].map(
    (name, i) => s.catalog.addTag({ workspace: g.org, name, color: COLORS[i % COLORS.length] as string, createdAt: GENERATION_START }).gid,
  );
  projectsOfOrg(g);
  projectsOfPersonalWorkspace(g);
  portfoliosAndGoals(g);
  tasks(g);
  // Last, so templates take no gid that other records had before templates existed.
  projectTemplates(g);
  return { organization: g.org, personalWorkspace: g.personal, serviceAccount: serviceAccount.gid };
}
