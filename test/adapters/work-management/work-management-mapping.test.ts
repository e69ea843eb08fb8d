import path from 'node:path';
import { Readable } from 'node:stream';
import {
  attachmentFile,
  attachmentLink,
  attachmentMimeType,
  attachmentVersion,
  fileId,
  groupId,
  isSyncedAttachment,
  population,
  portfolioGroup,
  projectGroup,
  renderTaskHtml,
  taskAccess,
  taskFile,
  teamGroup,
  teamsReferenced,
  toUser,
  workspaceMembersGroup,
} from '../../../src/adapters/work-management/work-management-mapping';
import type {
  WmAttachment,
  WmMembership,
  WmProject,
  WmTask,
  WmTeamMembership,
  WmWorkspaceMembership,
} from '../../../src/adapters/work-management/work-management-records';

const TEMPLATE = path.join(__dirname, '../../../templates/html/task.mustache');
const WS = '100';

const wm = (user: string, opts: { active?: boolean; guest?: boolean } = {}): WmWorkspaceMembership => ({
  gid: `wm${user}`,
  user: { gid: user },
  is_active: opts.active ?? true,
  is_guest: opts.guest ?? false,
});
// ana, bo: members; gus: inactive member; gina: guest; ivan: inactive guest.
const memberships = [wm('ana'), wm('bo'), wm('gus', { active: false }), wm('gina', { guest: true }), wm('ivan', { active: false, guest: true })];
const people = population(memberships);

const project = (gid: string, privacy: WmProject['privacy_setting'], team: string | null = 'eng'): WmProject => ({
  gid,
  name: `Project ${gid}`,
  privacy_setting: privacy,
  team: team ? { gid: team } : null,
});
const userMember = (gid: string): WmMembership => ({ gid: `m-${gid}`, member: { gid, resource_type: 'user' } });
const teamMember = (gid: string): WmMembership => ({ gid: `m-${gid}`, member: { gid, resource_type: 'team' } });
const task = (over: Partial<WmTask> = {}): WmTask => ({
  gid: '7',
  name: 'Write the plan',
  notes: 'First paragraph.\n\nSecond <paragraph> & more.',
  assignee: { gid: 'bo', name: 'Bo' },
  followers: [{ gid: 'ana' }, { gid: 'gus' }],
  projects: [{ gid: 'p1', name: 'Launch', permalink_url: 'https://wm.example/1/100/project/p1' }],
  parent: null,
  permalink_url: 'https://wm.example/1/100/task/7',
  created_at: '2025-01-02T03:04:05.000Z',
  completed: false,
  due_on: '2025-02-01',
  custom_fields: [
    { gid: 'cf1', name: 'Priority', display_value: 'High', enabled: true },
    { gid: 'cf2', name: 'Retired', display_value: 'Old', enabled: false },
    { gid: 'cf3', name: 'Empty', display_value: null },
  ],
  ...over,
});

describe('population and users', () => {
  it('counts active members (guests included) and tells guests apart; inactive ones count nowhere', () => {
    expect([...people.active].sort()).toEqual(['ana', 'bo', 'gina']);
    expect([...people.guests]).toEqual(['gina']);
  });

  it('with the users list, only users that can be synced (they have an email) count as active', () => {
    const p = population(memberships, [
      { gid: 'ana', name: 'Ana', email: 'ana@x.example' },
      { gid: 'bo', name: 'Bo', email: null },
      { gid: 'gina', name: 'Gina', email: 'gina@partner.example' },
    ]);
    expect([...p.active].sort()).toEqual(['ana', 'gina']);
  });

  it('maps users with their state: inactive members and guests are Inactive; no email, no user', () => {
    expect(toUser({ gid: 'ana', name: 'Ana', email: 'ana@x.example' }, people)).toEqual({
      nativeId: 'ana',
      email: 'ana@x.example',
      fullName: 'Ana',
      active: true,
      metadata: { guest: false },
    });
    expect(toUser({ gid: 'gus', name: 'Gus', email: 'gus@x.example' }, people)?.active).toBe(false);
    expect(toUser({ gid: 'ivan', name: 'Ivan', email: 'ivan@x.example' }, people)).toMatchObject({ active: false, metadata: { guest: false } });
    expect(toUser({ gid: 'gina', name: 'Gina', email: 'gina@partner.example' }, people)).toMatchObject({ active: true, metadata: { guest: true } });
    expect(toUser({ gid: 'nomail', name: 'No Mail', email: null }, people)).toBeUndefined();
  });
});

describe('groups', () => {
  it('the workspace members group holds active non-guests only (guests never get workspace-wide access)', () => {
    expect(workspaceMembersGroup(WS, 'Northwind', people)).toEqual({
      nativeId: 'workspace-members:100',
      name: 'Northwind (all members)',
      members: [
        { type: 'USER', nativeId: 'ana' },
        { type: 'USER', nativeId: 'bo' },
      ],
    });
  });

  it('a team group holds its active members, guests included, without limited-access members', () => {
    const tm = (user: string, opts: Partial<WmTeamMembership> = {}): WmTeamMembership => ({
      gid: `tm-${user}`,
      user: { gid: user },
      team: { gid: 'eng' },
      ...opts,
    });
    const group = teamGroup(
      { gid: 'eng', name: 'Engineering' },
      [tm('bo'), tm('ana', { is_limited_access: true }), tm('gina', { is_guest: true }), tm('gus'), tm('bo'), { ...tm('ana'), team: { gid: 'other' } }],
      people,
    );
    expect(group).toEqual({
      nativeId: 'team:eng',
      name: 'Engineering',
      members: [
        { type: 'USER', nativeId: 'bo' },
        { type: 'USER', nativeId: 'gina' },
      ],
    });
  });

  it.each([
    [
      'private',
      [
        { type: 'GROUP', nativeId: 'team:design' },
        { type: 'USER', nativeId: 'gina' },
      ],
    ],
    [
      'private_to_team',
      [
        { type: 'GROUP', nativeId: 'team:design' },
        { type: 'GROUP', nativeId: 'team:eng' },
        { type: 'USER', nativeId: 'gina' },
      ],
    ],
    [
      'public_to_workspace',
      [
        { type: 'GROUP', nativeId: 'team:design' },
        { type: 'GROUP', nativeId: 'team:eng' },
        { type: 'GROUP', nativeId: 'workspace-members:100' },
        { type: 'USER', nativeId: 'gina' },
      ],
    ],
  ] as const)('a %s project group: member users and teams, plus what its privacy adds', (privacy, members) => {
    const group = projectGroup(project('p1', privacy), WS, [userMember('gina'), userMember('gus'), teamMember('design')], people);
    expect(group).toEqual({ nativeId: 'project:p1', name: 'Project p1', members });
  });

  it('a teamless project adds no team whatever its privacy', () => {
    expect(projectGroup(project('p2', 'public_to_workspace', null), WS, [], people).members).toEqual([{ type: 'GROUP', nativeId: 'workspace-members:100' }]);
  });

  it('a project that inherits access control from portfolios has them as sub-groups; the portfolio group holds its members', () => {
    expect(projectGroup(project('p3', 'private'), WS, [], people, ['pf1']).members).toEqual([{ type: 'GROUP', nativeId: 'portfolio:pf1' }]);
    expect(portfolioGroup({ gid: 'pf1', name: 'Bets' }, [userMember('ana'), userMember('gus'), teamMember('eng')], people)).toEqual({
      nativeId: 'portfolio:pf1',
      name: 'Bets',
      members: [
        { type: 'GROUP', nativeId: 'team:eng' },
        { type: 'USER', nativeId: 'ana' },
      ],
    });
  });

  it('lists the teams a project group refers to, so each gets a group of its own', () => {
    expect(teamsReferenced(project('p1', 'private_to_team'), [teamMember('design'), userMember('ana')]).sort()).toEqual(['design', 'eng']);
    expect(teamsReferenced(project('p1', 'private'), [])).toEqual([]);
  });

  it('never uses the wildcard', () => {
    const everything = [
      workspaceMembersGroup(WS, 'W', people),
      projectGroup(project('p1', 'public_to_workspace'), WS, [teamMember('eng')], people, ['pf']),
      portfolioGroup({ gid: 'pf' }, [], people),
    ];
    expect(JSON.stringify(everything)).not.toContain('"*"');
    expect(JSON.stringify(taskAccess(task(), people))).not.toContain('EVERYONE');
  });
});

describe('task access', () => {
  it("is its projects' groups plus its active assignee and followers", () => {
    expect(taskAccess(task({ projects: [{ gid: 'p1' }, { gid: 'p2' }] }), people)).toEqual([
      { type: 'GROUP', nativeId: 'project:p1' },
      { type: 'GROUP', nativeId: 'project:p2' },
      { type: 'USER', nativeId: 'ana' },
      { type: 'USER', nativeId: 'bo' },
    ]);
  });

  it('a task in no project is visible to its collaborators only; a guest collaborator is one of them', () => {
    expect(taskAccess(task({ projects: [], assignee: null, followers: [{ gid: 'gina' }, { gid: 'ivan' }] }), people)).toEqual([
      { type: 'USER', nativeId: 'gina' },
    ]);
    expect(taskAccess(task({ projects: [], assignee: null, followers: [] }), people)).toEqual([]);
  });
});

describe('attachments', () => {
  const a = (over: Partial<WmAttachment> = {}): WmAttachment => ({
    gid: '9',
    name: 'Plan.PDF',
    host: 'asana',
    size: 1234,
    created_at: '2025-01-03T00:00:00.000Z',
    permanent_url: 'https://wm.example/asset/9',
    view_url: 'https://wm.example/view/9',
    ...over,
  });

  it('syncs supported types (by name) stored by the service itself; links to other hosts are not files', () => {
    expect(attachmentMimeType(a())).toBe('application/pdf');
    expect(attachmentMimeType(a({ name: 'deck.pptx' }))).toBe('application/vnd.openxmlformats-officedocument.presentationml.presentation');
    expect(attachmentMimeType(a({ name: 'notes.txt' }))).toBe('text/plain');
    expect(attachmentMimeType(a({ name: 'spec.docx' }))).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(attachmentMimeType(a({ name: 'photo.png' }))).toBeUndefined();
    expect(isSyncedAttachment(a())).toBe(true);
    expect(isSyncedAttachment(a({ host: 'gdrive' }))).toBe(false);
    expect(isSyncedAttachment(a({ name: 'image.png' }))).toBe(false);
  });

  it('versions the bytes by gid, size and creation time', () => {
    expect(attachmentVersion(a())).toBe('9:1234:2025-01-03T00:00:00.000Z');
    expect(attachmentVersion(a({ size: 99 }))).not.toBe(attachmentVersion(a()));
  });

  it("becomes a binary file with its task's access and the task as parent", async () => {
    const access = [{ type: 'GROUP' as const, nativeId: 'project:p1' }];
    const file = attachmentFile(a(), { nativeId: 'task:7', name: 'Write the plan', url: 'https://wm.example/task/7' }, access, async () =>
      Readable.from([Buffer.from('%PDF')]),
    );
    expect(file).toMatchObject({
      nativeId: 'attachment:9',
      name: 'Plan.PDF',
      externalUrl: 'https://wm.example/asset/9',
      mimeType: 'application/pdf',
      access,
      parent: { nativeId: 'task:7', name: 'Write the plan' },
      createdAt: '2025-01-03T00:00:00.000Z',
    });
    expect(file.content).toMatchObject({ kind: 'binary', version: '9:1234:2025-01-03T00:00:00.000Z' });
    expect(
      attachmentFile(a({ permanent_url: null, view_url: null }), { nativeId: 'task:7', name: 'T', url: 'https://wm.example/task/7' }, access, async () =>
        Readable.from([]),
      ).externalUrl,
    ).toBe('https://wm.example/task/7');
    expect(() => attachmentFile(a({ name: 'x.png' }), { nativeId: 'task:7', name: 'T', url: 'u' }, access, async () => Readable.from([]))).toThrow(
      /not of a supported type/,
    );
    expect(attachmentLink(a({ view_url: null }), 'fallback')).toBe('https://wm.example/asset/9');
  });
});

describe('task pages', () => {
  const page = (over: Partial<WmTask> = {}) =>
    renderTaskHtml(
      {
        task: task(over),
        projects: [{ name: 'Launch', permalink: 'https://wm.example/1/100/project/p1' }],
        subtasks: [{ name: 'Draft', permalink: 'https://wm.example/task/8', completed: true }],
        comments: [
          { gid: 's1', type: 'comment', text: 'Looks <good>', created_at: '2025-01-04T10:00:00.000Z', created_by: { gid: 'ana', name: 'Ana' } },
          { gid: 's2', type: 'system', text: 'added to Launch', created_at: '2025-01-04T09:00:00.000Z', created_by: null },
          { gid: 's3', type: 'comment', text: 'Anonymous', created_at: '2025-01-05T10:00:00.000Z', created_by: { gid: 'bo' } },
        ],
        attachments: [{ name: 'Plan.PDF', url: 'https://wm.example/view/9' }],
        userNames: new Map([['bo', 'Bo']]),
      },
      TEMPLATE,
    );

  it('renders notes, custom fields, subtasks, comments (not system stories) and attachment links, all escaped', () => {
    const html = page();
    expect(html).toContain('<title>Write the plan</title>');
    expect(html).toContain('<p>First paragraph.</p><p>Second &lt;paragraph&gt; &amp; more.</p>');
    expect(html).toContain('<dt>Priority</dt><dd>High</dd>');
    expect(html).not.toContain('Retired');
    expect(html).not.toContain('Empty');
    expect(html).toContain('[done] <a href="https://wm.example/task/8">Draft</a>');
    expect(html).toContain('Ana, 2025-01-04</p><p>Looks &lt;good&gt;</p>');
    expect(html).toContain('Bo, 2025-01-05');
    expect(html).not.toContain('added to Launch');
    expect(html).toContain('<a href="https://wm.example/view/9">Plan.PDF</a>');
    expect(html).toContain('Assigned to Bo.');
    expect(html).toContain('Due 2025-02-01.');
  });

  it('is the same bytes for the same task', () => {
    expect(page()).toBe(page());
  });

  it('becomes a file at its permalink, under its parent task or else its first project', () => {
    const access = [{ type: 'USER' as const, nativeId: 'ana' }];
    const top = taskFile(task(), '<p>x</p>', access, WS, 'ana@x.example');
    expect(top).toMatchObject({
      nativeId: fileId.task('7'),
      name: 'Write the plan',
      externalUrl: 'https://wm.example/1/100/task/7',
      mimeType: 'text/html',
      content: { kind: 'html', html: '<p>x</p>' },
      access,
      createdAt: '2025-01-02T03:04:05.000Z',
      createdBy: 'ana@x.example',
      parent: { nativeId: groupId.project('p1'), name: 'Launch', path: '/Launch' },
      customAttributes: { workspace: WS, kind: 'task', completed: 'false', due_on: '2025-02-01' },
    });
    const sub = taskFile(task({ parent: { gid: '6', name: 'Parent' }, name: ' ' }), '', [], WS);
    expect(sub).toMatchObject({ name: 'Untitled task 7', parent: { nativeId: 'task:6', name: 'Parent' }, customAttributes: { kind: 'subtask' } });
    expect(taskFile(task({ projects: [] }), '', [], WS).parent).toBeUndefined();
  });
});
