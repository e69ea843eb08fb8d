/** The generator's tasks: tasks and subtasks with custom field values, stories, attachments and dependencies. */
import { type CustomField, type Gid, type StoredValue, type Task, isoDate } from './model';
import { LAST_NAMES, slug, taskName } from './names';
import type { Random } from './random';
import { orgFields } from './generator-projects';
import { roundToPrecision } from './rules/custom-fields';
import { DAY, GENERATION_END, GENERATION_START, KINDS, type GenerationState, type ProjectInfo } from './generator-state';

export function randomValue(g: GenerationState, field: CustomField, task: Task, allowDisabledOption: boolean): StoredValue {
  const s = g.store;
  const options = s.indexes.list(field.enumOptions, s.indexes.enumOptions).filter((o) => o.enabled || allowDisabledOption);
  switch (field.type) {
    case 'text':
      return { type: 'text', text: `${g.rng.pick(LAST_NAMES)} ${g.rng.pick(['GmbH', 'Lda', 'Inc.', 'BV', 'SA'])}` };
    case 'number':
      return { type: 'number', number: roundToPrecision(g.rng.next() * 200, field.precision) };
    case 'enum':
      return { type: 'enum', option: g.rng.pick(options).gid };
    case 'multi_enum':
      return { type: 'multi_enum', options: g.rng.sample(options, g.rng.int(1, 2)).map((o) => o.gid) };
    case 'date': {
      const t = task.createdAt + g.rng.int(1, 60) * DAY;
      return g.rng.chance(0.3) ? { type: 'date', date: isoDate(t), dateTime: new Date(t).toISOString() } : { type: 'date', date: isoDate(t), dateTime: null };
    }
    case 'people':
      return { type: 'people', users: g.rng.sample(g.activeMembers, g.rng.int(1, 2)) };
    case 'reference': {
      const project = g.rng.pick(g.projects).project.gid;
      return { type: 'reference', refs: [project] };
    }
  }
}

/** Where a task is made: its workspace, its parent task (a subtask) and its projects. */
interface Placement {
  workspace: Gid;
  parent: Task | undefined;
  homes: ProjectInfo[];
}

/** What the task loop carries from one task to the next. */
interface TaskDraws {
  /** Subtask parents come from a window of recent tasks (a ring, so this stays O(1)). */
  recent: Task[];
  byGid: Map<Gid, Task>;
  /** Cycles through the attachment kinds for tasks past the scripted ones. */
  kindCounter: number;
}

export function tasks(g: GenerationState): void {
  const total = g.shape.tasks;
  const step = (GENERATION_END - 30 * DAY - GENERATION_START) / total;
  const pickProject = projectPicker(g);
  const orgUserGids = g.orgUsers.map((u) => u.gid);
  const draws: TaskDraws = { recent: [], byGid: new Map(), kindCounter: 0 };
  for (let i = 0; i < total; i++) {
    const createdAt = Math.floor(GENERATION_START + i * step + g.rng.next() * step * 0.9);
    // Scripted roles for the first twelve tasks, then random draws.
    const placement = i < 12 ? scriptedPlacement(g, i, draws.byGid) : randomPlacement(g, draws.recent, pickProject);
    const { task, followers } = addTask(g, i, createdAt, placement, orgUserGids);
    draws.byGid.set(task.gid, task);
    const inPersonal = placement.workspace !== g.org;
    if (!inPersonal && g.rng.chance(0.1)) g.store.tasks.tag(task, g.rng.pick(g.tags));
    if (i === 9 && g.tags[0]) g.store.tasks.tag(task, g.tags[0]);
    addCustomFieldValues(g, i, task, placement.homes, inPersonal);
    addStories(g, i, task, placement.homes, followers);
    draws.kindCounter = addAttachments(g, i, task, draws.kindCounter);
    if (draws.recent.length < 400) draws.recent.push(task);
    else draws.recent[i % 400] = task;
  }
}

/** Draws a project with probability proportional to its weight (binary search over the running sums). */
function projectPicker(g: GenerationState): () => ProjectInfo {
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of g.projectWeights) cumulative.push((acc += w));
  return () => {
    const r = g.rng.next() * acc;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] as number) <= r) lo = mid + 1;
      else hi = mid;
    }
    return g.projects[lo] as ProjectInfo;
  };
}

/** The first twelve tasks: one per project, multi-homed, in no project, subtasks, personal (no random draws). */
function scriptedPlacement(g: GenerationState, i: number, byGid: ReadonlyMap<Gid, Task>): Placement {
  const s = g.store;
  const p = g.projects;
  const placement: Placement = { workspace: g.org, parent: undefined, homes: [] };
  switch (i) {
    case 0:
      placement.homes = [p[0] as ProjectInfo];
      break;
    case 1:
      placement.homes = [p[1] as ProjectInfo];
      break;
    case 2:
      placement.homes = [p[2] as ProjectInfo];
      break;
    case 3:
      placement.homes = [p[3] as ProjectInfo];
      break;
    case 4:
      placement.homes = [p[1] as ProjectInfo, p[2] as ProjectInfo];
      break;
    case 5:
      placement.homes = [];
      break;
    case 6:
      placement.parent = byGid.get(s.indexes.tasksByWorkspace.get(g.org)?.[0] ?? '');
      break;
    case 7:
      placement.parent = byGid.get(s.indexes.tasksByWorkspace.get(g.org)?.[1] ?? '');
      placement.homes = [p[2] as ProjectInfo];
      break;
    case 8:
      placement.parent = byGid.get(s.indexes.tasksByWorkspace.get(g.org)?.[6] ?? '');
      break;
    case 9:
      placement.homes = [p[4] as ProjectInfo];
      break;
    case 10:
      placement.homes = [p[1] as ProjectInfo];
      break;
    case 11:
      if (g.personalProjects[0]) {
        placement.workspace = g.personal as Gid;
        placement.homes = [g.personalProjects[0]];
      } else placement.homes = [p[0] as ProjectInfo];
      break;
  }
  return placement;
}

/** A task past the scripted ones: now and then personal, else a subtask of a recent task, in no project, or in one or more projects. */
function randomPlacement(g: GenerationState, recent: readonly Task[], pickProject: () => ProjectInfo): Placement {
  const placement: Placement = { workspace: g.org, parent: undefined, homes: [] };
  if (g.personal && g.personalProjects.length > 0 && g.rng.chance(0.01)) {
    placement.workspace = g.personal;
    placement.homes = [g.rng.pick(g.personalProjects)];
  } else if (recent.length > 0 && g.rng.chance(g.shape.subtaskRatio)) {
    const candidate = g.rng.pick(recent);
    if (g.store.indexes.ancestry(candidate).length - 1 < 4) {
      placement.parent = candidate;
      placement.workspace = candidate.workspace;
      if (placement.workspace === g.org && g.rng.chance(0.2)) placement.homes = [pickProject()];
    } else placement.homes = [pickProject()];
  } else if (g.rng.chance(g.shape.noProjectRatio)) placement.homes = [];
  else {
    placement.homes = [pickProject()];
    if (g.rng.chance(g.shape.multiHomeRatio)) {
      for (let k = g.rng.int(1, 2); k > 0; k--) {
        const other = pickProject();
        if (!placement.homes.includes(other)) placement.homes.push(other);
      }
    }
  }
  return placement;
}

/** The task itself: creator, assignee and followers drawn from the people around its projects (scripted ones on tasks 2 and 5). */
function addTask(
  g: GenerationState,
  i: number,
  createdAt: number,
  { workspace, parent, homes }: Placement,
  orgUserGids: readonly Gid[],
): { task: Task; followers: Gid[] } {
  const inPersonal = workspace !== g.org;
  const people = homes.length > 0 ? [...new Set(homes.flatMap((h) => h.people))] : inPersonal ? g.personalUsers : g.activeMembers;
  const pool = people.length > 0 ? people : g.activeMembers;
  const createdBy = i === 5 ? (g.activeMembers[1] as Gid) : g.rng.pick(pool);
  // Tasks in no project live in someone's My Tasks: they always have an assignee.
  const noHome = homes.length === 0 && !parent;
  const assignee = noHome || i < 12 || g.rng.chance(0.75) ? (i === 5 ? (g.activeMembers[2] as Gid) : g.rng.pick(pool)) : null;
  const followers = new Set<Gid>([createdBy]);
  if (assignee) followers.add(assignee);
  const everyone = inPersonal ? g.personalUsers : orgUserGids;
  let extra = g.rng.chance(g.shape.extraFollowersPerTask / 2) ? g.rng.int(1, 3) : 0;
  while (extra-- > 0) followers.add(g.rng.pick(everyone));
  if (i === 5 && g.guests[1]) followers.add(g.guests[1]); // a guest collaborator on a private task
  if (i === 2 && g.inactive[0]) followers.add(g.inactive[0]); // an inactive follower
  const completed = i === 11 || (i > 11 && g.rng.chance(0.35));
  const modifiedAt = Math.min(GENERATION_END, createdAt + (g.rng.chance(0.5) ? g.rng.int(0, 60) * DAY : g.rng.int(0, 3600_000)));
  const task = g.store.tasks.add({
    workspace,
    name: taskName(g.rng),
    memberships: homes.map((h) => ({ project: h.project.gid, section: g.rng.pick(h.sections) })),
    parent: parent?.gid ?? null,
    assignee,
    followers: [...followers],
    createdBy,
    createdAt,
    modifiedAt,
    completed,
    completedAt: completed ? modifiedAt : null,
    dueOn: g.rng.chance(0.6) ? isoDate(createdAt + g.rng.int(3, 90) * DAY) : null,
    resourceSubtype: g.rng.chance(0.03) ? 'milestone' : g.rng.chance(0.02) ? 'approval' : 'default_task',
    customType: !inPersonal && g.rng.chance(0.1) ? g.rng.pick(g.customTypes) : null,
  });
  return { task, followers: [...followers] };
}

/** Values on the fields of its projects; on task 10 a disabled option and a field that left the project, later ones now and then an orphan. */
function addCustomFieldValues(g: GenerationState, i: number, task: Task, homes: readonly ProjectInfo[], inPersonal: boolean): void {
  const s = g.store;
  const fields = [...new Set(homes.flatMap((h) => h.fields))];
  for (const gid of fields) {
    if (i !== 0 && !g.rng.chance(g.shape.customFieldValueRatio)) continue;
    const field = s.indexes.customFields.get(gid) as CustomField;
    task.customFieldValues.push({ field: gid, value: randomValue(g, field, task, g.rng.chance(0.03)) });
  }
  if (i === 10) {
    // A value whose option was disabled since, and a value whose field left the project.
    const priority = g.fieldsByType.get('enum') as CustomField;
    const retired = s.indexes.list(priority.enumOptions, s.indexes.enumOptions).find((o) => !o.enabled);
    task.customFieldValues = task.customFieldValues.filter((v) => v.field !== priority.gid);
    if (retired) task.customFieldValues.push({ field: priority.gid, value: { type: 'enum', option: retired.gid } });
    const orphan = orgFields(g).find((f) => !fields.includes(f.gid)) ?? orgFields(g)[0];
    if (orphan && !fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: randomValue(g, orphan, task, false) });
  } else if (i > 11 && !inPersonal && g.rng.chance(0.02)) {
    const orphan = g.rng.pick(orgFields(g));
    if (!fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: randomValue(g, orphan, task, false) });
  }
}

/** An occasional system story, and comments by the people around the task. */
function addStories(g: GenerationState, i: number, task: Task, homes: readonly ProjectInfo[], commenters: readonly Gid[]): void {
  const { createdBy, createdAt } = task;
  if (homes.length > 0 && g.rng.chance(0.3)) {
    g.store.tasks.addStory({
      target: task.gid,
      type: 'system',
      resourceSubtype: 'added_to_project',
      text: `added to ${homes[0]?.project.name ?? ''}`,
      createdBy,
      createdAt: createdAt + 1000,
      source: 'web',
    });
  }
  let comments = i < 12 ? 1 + (i % 2) : poisson(g.rng, g.shape.commentsPerTask);
  while (comments-- > 0) {
    g.store.tasks.addStory({
      target: task.gid,
      type: 'comment',
      resourceSubtype: 'comment_added',
      createdBy: g.rng.pick(commenters),
      createdAt: Math.min(GENERATION_END, createdAt + g.rng.int(1, 30 * 24) * 3600_000),
      source: g.rng.pick(['web', 'web', 'email', 'mobile', 'api'] as const),
    });
  }
}

/** The first tasks get one of each kind and a link; later ones at random. Returns the kind counter after them. */
function addAttachments(g: GenerationState, i: number, task: Task, kindCounter: number): number {
  const scriptedKind = i < 4 ? KINDS[i] : undefined;
  const attachCount = scriptedKind || i === 4 ? 1 : g.rng.chance(g.shape.attachmentRatio) ? g.rng.int(1, 2) : 0;
  let counter = kindCounter;
  for (let k = 0; k < attachCount; k++) {
    const link = i === 4 || (i >= 12 && g.rng.chance(g.shape.externalAttachmentRatio));
    const kind = scriptedKind ?? KINDS[counter++ % KINDS.length] ?? 'pdf';
    const base = slug(task.name) || 'file';
    g.store.tasks.addAttachment({
      parent: task.gid,
      name: link ? `${base}-notes` : `${base}${k > 0 ? `-${k + 1}` : ''}.${kind}`,
      host: link ? g.rng.pick(['gdrive', 'dropbox', 'box', 'onedrive'] as const) : 'asana',
      kind: link ? null : kind,
      createdAt: task.createdAt + 60_000,
      createdBy: task.createdBy,
    });
  }
  return counter;
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
