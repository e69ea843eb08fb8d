/** The generator's projects: custom fields, projects with sections and members, status updates, portfolios, goals and project templates. */
import { type CustomField, type Gid, type PrivacySetting, type Team, type WorkManagementStore, isoDate } from './model';
import { PROJECT_TOPICS, slug } from './names';
import { COLORS, DAY, GENERATION_START, GOAL_STATUS_TYPES, PROJECT_STATUS_TYPES, SECTION_NAMES, type GenerationState } from './generator-state';

export function customFields(g: GenerationState): void {
  const s = g.store;
  const creator = g.activeMembers[0] ?? null;
  const defs: Array<Parameters<WorkManagementStore['catalog']['addCustomField']>[0]> = [
    {
      workspace: g.org,
      name: 'Priority',
      type: 'enum',
      enumOptions: [
        { name: 'High', color: 'red' },
        { name: 'Medium', color: 'yellow' },
        { name: 'Low', color: 'green' },
        { name: 'Urgent (retired)', color: 'purple', enabled: false },
      ],
    },
    {
      workspace: g.org,
      name: 'Labels',
      type: 'multi_enum',
      enumOptions: [
        { name: 'Frontend', color: 'blue' },
        { name: 'Backend', color: 'cool-gray' },
        { name: 'Docs', color: 'green' },
        { name: 'Legacy', color: 'none', enabled: false },
      ],
    },
    { workspace: g.org, name: 'Estimate (hours)', type: 'number', precision: 1 },
    { workspace: g.org, name: 'Budget (EUR)', type: 'number', precision: 2 },
    { workspace: g.org, name: 'Customer', type: 'text' },
    { workspace: g.org, name: 'Review date', type: 'date' },
    { workspace: g.org, name: 'Reviewers', type: 'people' },
    { workspace: g.org, name: 'Related work', type: 'reference', inputRestrictions: ['task', 'project'] },
    { workspace: g.org, name: 'Stage', type: 'enum', enumOptions: [{ name: 'Idea' }, { name: 'Planned' }, { name: 'Building' }, { name: 'Shipped' }] },
  ];
  for (const def of defs) {
    const field = s.catalog.addCustomField({ ...def, createdBy: creator, description: `${def.name} of the work item.` });
    if (!g.fieldsByType.has(field.type)) g.fieldsByType.set(field.type, field);
    else g.fieldsByType.set(`${field.type}:${field.gid}`, field);
  }
  if (g.personal) {
    g.personalFields.push(s.catalog.addCustomField({ workspace: g.personal, name: 'Effort', type: 'number', precision: 0 }));
    g.personalFields.push(s.catalog.addCustomField({ workspace: g.personal, name: 'Mood', type: 'enum', enumOptions: [{ name: 'Fun' }, { name: 'Chore' }] }));
  }
}

export function orgFields(g: GenerationState): CustomField[] {
  return [...g.fieldsByType.values()];
}

export function projectsOfOrg(g: GenerationState): void {
  const s = g.store;
  const fields = orgFields(g);
  for (let i = 0; i < g.shape.projects; i++) {
    // Scripted first five: public, team-only, private, private shared with other teams, archived.
    const privacy: PrivacySetting =
      i === 0
        ? 'public_to_workspace'
        : i === 1
          ? 'private_to_team'
          : i === 2 || i === 3
            ? 'private'
            : ((['public_to_workspace', 'private_to_team', 'private'] as const)[g.rng.weighted(g.shape.privacyMix)] ?? 'private');
    const team = (i < 4 ? g.teams[i % g.teams.length] : g.rng.pick(g.teams)) as Team;
    const teamPeople = (g.teamMembers.get(team.gid) ?? []).filter((u) => !g.guests.includes(u));
    const owner = teamPeople.find((u) => g.activeMembers.includes(u)) ?? (g.activeMembers[i % g.activeMembers.length] as Gid);
    const topic = PROJECT_TOPICS[i % PROJECT_TOPICS.length] as string;
    const archived = i === 4 || (i > 4 && g.rng.chance(g.shape.archivedRatio));
    const createdAt = g.time(GENERATION_START - 200 * DAY, GENERATION_START + 100 * DAY);
    const project = s.projects.add({
      workspace: g.org,
      team: team.gid,
      name: i < PROJECT_TOPICS.length ? topic : `${topic} ${Math.floor(i / PROJECT_TOPICS.length) + 1}`,
      privacySetting: privacy,
      archived,
      owner,
      color: g.rng.pick(COLORS),
      createdAt,
      notes: `${topic}: goals, owners and the plan for ${team.name}.`,
    });
    // User members: the owner plus a few team members (or other people for private projects).
    const extra = g.rng.sample(teamPeople.length > 1 ? teamPeople : g.activeMembers, g.rng.int(1, 5));
    for (const u of extra)
      s.projects.addMembership({ parent: project.gid, member: u, accessLevel: g.rng.pick(['editor', 'editor', 'commenter', 'viewer'] as const) });
    if (i === 2 || i === 3 || g.rng.chance(0.15)) {
      const guest = i === 2 ? g.guests[0] : g.rng.pick(g.guests);
      if (guest) s.projects.addMembership({ parent: project.gid, member: guest, accessLevel: 'commenter' });
    }
    if (i === 3 || (privacy === 'private' && g.rng.chance(g.shape.teamSharedRatio))) {
      const others = g.teams.filter((t) => t.gid !== team.gid);
      for (const t of g.rng.sample(others, i === 3 ? 1 : g.rng.int(1, 2)))
        s.projects.addMembership({ parent: project.gid, member: t.gid, accessLevel: 'editor' });
    }
    // Followers ⊂ members.
    const users = s.projects.userMembers(project.gid);
    project.followers = [
      owner,
      ...g.rng.sample(
        users.filter((u) => u !== owner),
        g.rng.int(0, 2),
      ),
    ];
    const sections = g.rng.sample(SECTION_NAMES, g.rng.int(2, 5)).map((name) => s.projects.addSection({ project: project.gid, name, createdAt }).gid);
    const projectFields = i === 0 ? fields : g.rng.sample(fields, g.rng.int(0, 4));
    // Project 1 carries Priority (so values move in and out with tasks); project 2 deliberately does not.
    if (i === 1 && !projectFields.some((f) => f.type === 'enum')) projectFields.push(g.fieldsByType.get('enum') as CustomField);
    if (i === 2) projectFields.splice(0, projectFields.length);
    for (const f of projectFields) s.catalog.addCustomFieldSetting({ field: f.gid, parent: project.gid, isImportant: g.rng.chance(0.6) });
    const people = [...new Set([...users, ...(g.teamMembers.get(team.gid) ?? [])])];
    g.projects.push({ project, sections, people, fields: projectFields.map((f) => f.gid) });
    statusUpdates(g, project.gid, 'project', owner, createdAt, i === 0);
    if (i === 0 || g.rng.chance(0.05))
      s.tasks.addAttachment({ parent: project.gid, name: `${slug(project.name)}-brief.pdf`, kind: 'pdf', createdAt, createdBy: owner });
  }
  // Bigger and smaller projects: a long tail of weights.
  g.projectWeights = g.projects.map((p, i) => (p.project.archived ? 0.3 : 1) * (i < 5 ? 2 : 0.2 + g.rng.next() ** 3 * 4));
}

export function statusUpdates(g: GenerationState, parent: Gid, kind: 'project' | 'portfolio' | 'goal', author: Gid, after: number, force: boolean): void {
  const s = g.store;
  const count = force ? 2 : g.rng.chance(0.4) ? g.rng.int(1, 2) : 0;
  for (let k = 0; k < count; k++) {
    const type = g.rng.pick(kind === 'goal' ? GOAL_STATUS_TYPES : PROJECT_STATUS_TYPES);
    s.catalog.addStatusUpdate({
      parent,
      statusType: type,
      title: `Status ${isoDate(after + (k + 1) * 14 * DAY)}`,
      text: `We are ${type.replace('_', ' ')}.`,
      author,
      createdAt: after + (k + 1) * 14 * DAY,
    });
  }
  if (kind === 'project' && (force || g.rng.chance(0.1))) {
    s.catalog.addProjectStatus({
      project: parent,
      color: g.rng.pick(['green', 'yellow', 'red', 'blue'] as const),
      title: 'Weekly status',
      text: 'Legacy status report.',
      author,
      createdAt: after + DAY,
    });
  }
}

export function projectsOfPersonalWorkspace(g: GenerationState): void {
  if (!g.personal) return;
  const s = g.store;
  const count = Math.max(2, Math.round(g.shape.projects / 40));
  for (let i = 0; i < count; i++) {
    const owner = g.personalUsers[i % g.personalUsers.length] as Gid;
    const createdAt = g.time(GENERATION_START, GENERATION_START + 100 * DAY);
    const project = s.projects.add({
      workspace: g.personal,
      team: null,
      name: ['Garden plan', 'Book club', 'Home renovation', 'Marathon training', 'Family trip'][i % 5] as string,
      privacySetting: i % 2 === 0 ? 'public_to_workspace' : 'private',
      owner,
      createdAt,
    });
    for (const u of g.rng.sample(
      g.personalUsers.filter((u) => u !== owner),
      2,
    ))
      s.projects.addMembership({ parent: project.gid, member: u });
    project.followers = [owner];
    const sections = ['Ideas', 'Doing', 'Done'].map((name) => s.projects.addSection({ project: project.gid, name, createdAt }).gid);
    const fields = i === 0 ? g.personalFields : [];
    for (const f of fields) s.catalog.addCustomFieldSetting({ field: f.gid, parent: project.gid });
    g.personalProjects.push({ project, sections, people: s.projects.userMembers(project.gid), fields: fields.map((f) => f.gid) });
  }
}

export function portfoliosAndGoals(g: GenerationState): void {
  const s = g.store;
  const fields = orgFields(g);
  for (let i = 0; i < g.shape.portfolios; i++) {
    const owner = g.activeMembers[(i * 3) % g.activeMembers.length] as Gid;
    const portfolio = s.catalog.addPortfolio({
      workspace: g.org,
      name: `${['Company bets', 'Customer programs', 'Infrastructure', 'Go to market'][i % 4]}${i >= 4 ? ` ${i}` : ''}`,
      owner,
      createdAt: GENERATION_START + i * DAY,
    });
    for (const u of g.rng.sample(g.activeMembers, 2)) s.projects.addMembership({ parent: portfolio.gid, member: u, accessLevel: 'viewer' });
    if (g.rng.chance(0.5)) s.projects.addMembership({ parent: portfolio.gid, member: g.rng.pick(g.teams).gid, accessLevel: 'viewer' });
    const items = g.rng.sample(g.projects, g.rng.int(2, Math.min(12, g.projects.length)));
    for (const item of items) {
      portfolio.items.push(item.project.gid);
      s.catalog.addProjectPortfolioSetting({
        project: item.project.gid,
        portfolio: portfolio.gid,
        isAccessControlInherited: g.rng.chance(g.shape.portfolioAccessInheritanceRatio),
      });
    }
    for (const f of g.rng.sample(fields, 2)) s.catalog.addCustomFieldSetting({ field: f.gid, parent: portfolio.gid });
    statusUpdates(g, portfolio.gid, 'portfolio', owner, GENERATION_START, i === 0);
  }
  for (let i = 0; i < g.shape.goals; i++) {
    const team = i === 0 ? null : g.rng.pick(g.teams).gid;
    const owner = g.activeMembers[(i * 5) % g.activeMembers.length] as Gid;
    const goal = s.catalog.addGoal({
      workspace: g.org,
      name: ['Grow revenue 20%', 'Ship firmware 5', 'Halve support backlog', 'Hire 10 engineers', 'Reach SOC 2'][i % 5] as string,
      team,
      owner,
      createdAt: GENERATION_START,
    });
    statusUpdates(g, goal.gid, 'goal', owner, GENERATION_START, i === 0);
  }
}

/** Two templates: a launch with two date variables and two roles, an onboarding with one date. */
export function projectTemplates(g: GenerationState): void {
  const [first, second] = g.teams;
  const ownerOf = (team: Team | undefined): Gid | null => g.teamMembers.get(team?.gid ?? '')?.find((u) => g.activeMembers.includes(u)) ?? null;
  if (first) {
    g.store.catalog.addProjectTemplate({
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
        {
          name: 'Plan',
          tasks: [
            { name: 'Write the launch brief', dueOffsetDays: 2, role: '1' },
            { name: 'Kick-off meeting', dueOffsetDays: 3, role: null },
          ],
        },
        {
          name: 'Build',
          tasks: [
            { name: 'Design the landing page', dueOffsetDays: 10, role: '2' },
            { name: 'Release checklist', dueOffsetDays: 20, role: '1' },
          ],
        },
        { name: 'Follow up', tasks: [{ name: 'Launch retrospective', dueOffsetDays: null, role: '1' }] },
      ],
    });
  }
  if (second) {
    g.store.catalog.addProjectTemplate({
      team: second.gid,
      name: 'New hire onboarding',
      description: 'The first two weeks of a new colleague.',
      owner: ownerOf(second),
      public: false,
      requestedDates: [{ gid: '1', name: 'Start Date', description: 'The first working day.' }],
      requestedRoles: [{ gid: '1', name: 'Buddy' }],
      sections: [
        {
          name: 'First week',
          tasks: [
            { name: 'Laptop and accounts', dueOffsetDays: 0, role: null },
            { name: 'Lunch with the buddy', dueOffsetDays: 1, role: '1' },
          ],
        },
      ],
    });
  }
}
