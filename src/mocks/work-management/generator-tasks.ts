/** The generator's tasks: tasks and subtasks with custom field values, stories, attachments and dependencies. */
import { type CustomField, type Gid, type StoredValue, type Task, isoDate } from './model';
import { LAST_NAMES, slug, taskName } from './names';
import type { Random } from './random';
import { orgFields } from './generator-projects';
import { roundToPrecision } from './rules/custom-fields';
import { DAY, GENERATION_END, GENERATION_START, KINDS, type GenerationState, type ProjectInfo } from './generator-state';

export function randomValue(g: GenerationState, field: CustomField, task: Task, allowDisabledOption: boolean): StoredValue {
  const s = g.store;
  const options = s.list(field.enumOptions, s.enumOptions).filter((o) => o.enabled || allowDisabledOption);
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

export function tasks(g: GenerationState): void {
  const s = g.store;
  const total = g.shape.tasks;
  const step = (GENERATION_END - 30 * DAY - GENERATION_START) / total;
  const recent: Task[] = [];
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of g.projectWeights) cumulative.push((acc += w));
  const pickProject = (): ProjectInfo => {
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
  const depth = (t: Task): number => s.ancestry(t).length - 1;
  const byGid = new Map<Gid, Task>();
  const orgUserGids = g.orgUsers.map((u) => u.gid);
  let kindCounter = 0;

  for (let i = 0; i < total; i++) {
    const createdAt = Math.floor(GENERATION_START + i * step + g.rng.next() * step * 0.9);
    let workspace = g.org;
    let parent: Task | undefined;
    let homes: ProjectInfo[] = [];
    // Scripted roles for the first twelve tasks (see the file comment), then random draws.
    const p = g.projects;
    switch (i) {
      case 0: homes = [p[0] as ProjectInfo]; break;
      case 1: homes = [p[1] as ProjectInfo]; break;
      case 2: homes = [p[2] as ProjectInfo]; break;
      case 3: homes = [p[3] as ProjectInfo]; break;
      case 4: homes = [p[1] as ProjectInfo, p[2] as ProjectInfo]; break;
      case 5: homes = []; break;
      case 6: parent = byGid.get(s.tasksByWorkspace.get(g.org)?.[0] ?? ''); break;
      case 7: parent = byGid.get(s.tasksByWorkspace.get(g.org)?.[1] ?? ''); homes = [p[2] as ProjectInfo]; break;
      case 8: parent = byGid.get(s.tasksByWorkspace.get(g.org)?.[6] ?? ''); break;
      case 9: homes = [p[4] as ProjectInfo]; break;
      case 10: homes = [p[1] as ProjectInfo]; break;
      case 11:
        if (g.personalProjects[0]) {
          workspace = g.personal as Gid;
          homes = [g.personalProjects[0]];
        } else homes = [p[0] as ProjectInfo];
        break;
      default: {
        if (g.personal && g.personalProjects.length > 0 && g.rng.chance(0.01)) {
          workspace = g.personal;
          homes = [g.rng.pick(g.personalProjects)];
        } else if (recent.length > 0 && g.rng.chance(g.shape.subtaskRatio)) {
          const candidate = g.rng.pick(recent);
          if (depth(candidate) < 4) {
            parent = candidate;
            workspace = candidate.workspace;
            if (workspace === g.org && g.rng.chance(0.2)) homes = [pickProject()];
          } else homes = [pickProject()];
        } else if (g.rng.chance(g.shape.noProjectRatio)) homes = [];
        else {
          homes = [pickProject()];
          if (g.rng.chance(g.shape.multiHomeRatio)) {
            for (let k = g.rng.int(1, 2); k > 0; k--) {
              const other = pickProject();
              if (!homes.includes(other)) homes.push(other);
            }
          }
        }
      }
    }
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
    const task = s.addTask({
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
    byGid.set(task.gid, task);
    if (!inPersonal && g.rng.chance(0.1)) s.addTaskTag(task, g.rng.pick(g.tags));
    if (i === 9 && g.tags[0]) s.addTaskTag(task, g.tags[0]);

    // Custom field values: set on the fields of its projects; scripted disabled ones on task 10.
    const fields = [...new Set(homes.flatMap((h) => h.fields))];
    for (const gid of fields) {
      if (i !== 0 && !g.rng.chance(g.shape.customFieldValueRatio)) continue;
      const field = s.customFields.get(gid) as CustomField;
      task.customFieldValues.push({ field: gid, value: randomValue(g, field, task, g.rng.chance(0.03)) });
    }
    if (i === 10) {
      // A value whose option was disabled since, and a value whose field left the project.
      const priority = g.fieldsByType.get('enum') as CustomField;
      const retired = s.list(priority.enumOptions, s.enumOptions).find((o) => !o.enabled);
      task.customFieldValues = task.customFieldValues.filter((v) => v.field !== priority.gid);
      if (retired) task.customFieldValues.push({ field: priority.gid, value: { type: 'enum', option: retired.gid } });
      const orphan = orgFields(g).find((f) => !fields.includes(f.gid)) ?? orgFields(g)[0];
      if (orphan && !fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: randomValue(g, orphan, task, false) });
    } else if (i > 11 && !inPersonal && g.rng.chance(0.02)) {
      const orphan = g.rng.pick(orgFields(g));
      if (!fields.includes(orphan.gid)) task.customFieldValues.push({ field: orphan.gid, value: randomValue(g, orphan, task, false) });
    }

    // Stories: an occasional system story, and comments by the people around the task.
    if (homes.length > 0 && g.rng.chance(0.3)) {
      s.addStory({ target: task.gid, type: 'system', resourceSubtype: 'added_to_project', text: `added to ${homes[0]?.project.name ?? ''}`, createdBy, createdAt: createdAt + 1000, source: 'web' });
    }
    let comments = i < 12 ? 1 + (i % 2) : poisson(g.rng, g.shape.commentsPerTask);
    const commenters = [...followers];
    while (comments-- > 0) {
      s.addStory({ target: task.gid, type: 'comment', resourceSubtype: 'comment_added', createdBy: g.rng.pick(commenters), createdAt: Math.min(GENERATION_END, createdAt + g.rng.int(1, 30 * 24) * 3600_000), source: g.rng.pick(['web', 'web', 'email', 'mobile', 'api'] as const) });
    }

    // Attachments: the first tasks get one of each kind and a link; later ones at random.
    const scriptedKind = i < 4 ? KINDS[i] : undefined;
    const attachCount = scriptedKind || i === 4 ? 1 : g.rng.chance(g.shape.attachmentRatio) ? g.rng.int(1, 2) : 0;
    for (let k = 0; k < attachCount; k++) {
      const link = i === 4 || (i >= 12 && g.rng.chance(g.shape.externalAttachmentRatio));
      const kind = scriptedKind ?? KINDS[kindCounter++ % KINDS.length] ?? 'pdf';
      const base = slug(task.name) || 'file';
      s.addAttachment({
        parent: task.gid,
        name: link ? `${base}-notes` : `${base}${k > 0 ? `-${k + 1}` : ''}.${kind}`,
        host: link ? g.rng.pick(['gdrive', 'dropbox', 'box', 'onedrive'] as const) : 'asana',
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
