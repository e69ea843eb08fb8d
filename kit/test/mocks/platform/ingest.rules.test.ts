import { DEMO_BYTES, MIMES, html, startFakeGateway, view, type FakeGateway } from './fake-gateway';
import { finalMessage, startSimulator, type RunningSimulator } from './simulator-harness';

/** The content gateway rules the platform (and so the simulator) applies when it ingests. */
let gw: FakeGateway;
let p: RunningSimulator;
const waits: number[] = [];

const USERS = [
  { id: 'u1', primary_email_addr: 'ann@corp.test', state: 'Active' },
  { id: 'u2', primary_email_addr: 'bob@corp.test', state: 'Active' },
  { id: 'u3', primary_email_addr: 'cat@corp.test', state: 'Inactive' },
  { id: 'u4', primary_email_addr: 'dan@corp.test', state: 'Active' },
];
const GROUPS = [
  {
    id: 'all',
    name: 'All',
    members: [
      { type: 'GROUP', id: 'eng' },
      { type: 'USER', id: 'u4' },
    ],
  },
  {
    id: 'eng',
    name: 'Eng',
    members: [
      { type: 'GROUP', id: 'sre' },
      { type: 'USER', id: 'u3' },
    ],
  },
  { id: 'sre', name: 'SRE', members: [{ type: 'USER', id: 'u1' }] },
];

beforeAll(async () => {
  gw = await startFakeGateway({
    users: USERS,
    groups: GROUPS,
    files: [
      {
        id: 'pub',
        name: 'Lunch menu',
        mime: MIMES.html,
        html: html('Lunch menu', 'Pancakes on fridays in the canteen.'),
        modified: '2025-01-01T00:00:00.000Z',
        permissions: [view('GROUP', '*')],
      },
      {
        id: 'nested',
        name: 'Pager rota',
        mime: MIMES.txt,
        bytes: Buffer.from('The pager rota rotates weekly on mondays.'),
        modified: '2025-01-01T00:00:00.000Z',
        permissions: [view('GROUP', 'all')],
      },
      { id: 'sre-only', name: 'Runbook', mime: MIMES.pdf, bytes: DEMO_BYTES.pdf(), modified: '2025-01-01T00:00:00.000Z', permissions: [view('GROUP', 'sre')] },
      {
        id: 'bob-only',
        name: 'Salary letter',
        mime: MIMES.docx,
        bytes: DEMO_BYTES.docx(),
        modified: '2025-01-01T00:00:00.000Z',
        permissions: [view('USER', 'u2')],
      },
      {
        id: 'slides',
        name: 'All hands slides',
        mime: MIMES.pptx,
        bytes: DEMO_BYTES.pptx(),
        modified: '2025-01-01T00:00:00.000Z',
        permissions: [view('USER', 'u1')],
      },
      {
        id: 'odd',
        name: 'Odd grants parrot',
        mime: MIMES.txt,
        bytes: Buffer.from('The parrot document is shared oddly.'),
        modified: '2025-01-01T00:00:00.000Z',
        permissions: [{ type: 'USER', id: '*', action: 'VIEW' }, { type: 'USER', id: 'u2', action: 'UPDATE' }, view('GROUP', 'ghosts')],
      },
    ],
  });
  p = await startSimulator({ gateway: { baseUrl: gw.url, auth: { kind: 'api-key', key: gw.key }, sleep: async (ms) => void waits.push(ms) } });
  const report = (await p.admin('/ingest', { method: 'POST' })).body;
  expect(report).toMatchObject({ status: 'succeeded', failures: [] });
});
afterAll(async () => {
  await p.close();
  await gw.close();
});

const visible = async (email: string): Promise<string[]> => (await p.admin(`/access?email=${encodeURIComponent(email)}`)).body.files;

describe('Content gateway: the platform polls it on a schedule and handles ingestion (polling, diffing, retries), search indexing and permission enforcement', () => {
  it('follows every @odata.nextLink (pages of 2) and reads every file, access list, group, member list and user', () => {
    const files = p.sim.context.corpus().snapshot;
    expect([...files.files.keys()].sort()).toEqual(['bob-only', 'nested', 'odd', 'pub', 'slides', 'sre-only']);
    expect(files.users.map((u) => u.id)).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(files.groups.map((g) => g.id)).toEqual(['all', 'eng', 'sre']);
    expect(gw.log.filter((l) => l.includes('$skip=')).length).toBeGreaterThan(3);
  });

  it('diffing: a binary is downloaded again only when its last_modified_datetime changed', async () => {
    const second = (await p.admin('/ingest', { method: 'POST' })).body;
    expect(second.downloaded).toEqual([]);
    expect([...second.downloadSkipped].sort()).toEqual(['bob-only', 'nested', 'odd', 'slides', 'sre-only']);
    const f = gw.state.files.find((x) => x.id === 'nested')!;
    f.modified = '2025-02-01T00:00:00.000Z';
    f.bytes = Buffer.from('The pager rota now rotates on tuesdays.');
    const third = (await p.admin('/ingest', { method: 'POST' })).body;
    expect(third.downloaded).toEqual(['nested']);
    expect(third.changed).toEqual(['nested']);
    expect(p.sim.context.corpus().snapshot.files.get('nested')?.text).toContain('tuesdays');
  });

  it('retries: a 429 is retried after its Retry-After', async () => {
    gw.state.throttle = 2;
    gw.state.retryAfter = '7';
    waits.length = 0;
    const report = (await p.admin('/ingest', { method: 'POST' })).body;
    expect(report).toMatchObject({ status: 'succeeded', retries: 2 });
    expect(waits).toEqual([7000, 7000]);
  });

  it('polls on a schedule of the simulator clock, skipping a run while one is going', async () => {
    const sched = await startSimulator({
      gateway: { baseUrl: gw.url, auth: { kind: 'api-key', key: gw.key } },
      ingestEveryMs: 3_600_000,
      now: () => Date.UTC(2025, 0, 1),
    });
    try {
      await sched.sim.advanceClock(0);
      await sched.sim.advanceClock(60_000);
      expect(sched.sim.context.ingests.length).toBe(1);
      await sched.sim.advanceClock(3_600_000);
      expect(sched.sim.context.ingests.length).toBe(2);
    } finally {
      await sched.close();
    }
  });

  it('search indexing: the answer cites the file whose text matches', async () => {
    const answer = finalMessage((await p.ask('dan@corp.test', 'pancakes canteen')).messages);
    expect(answer.citations.map((c: { url: string }) => c.url)).toEqual(['https://docs.example/pub']);
  });
});

describe('file: metadata; inline HTML body for knowledge-article style content; binary download for PDF, PPTX, DOCX, TXT', () => {
  it.each([
    ['pub', false, 'Pancakes'],
    ['nested', true, 'pager rota'],
    ['sre-only', true, 'Incident Response Runbook'],
    ['bob-only', true, 'Salary'],
    ['slides', true, 'All-hands'],
  ])('%s: downloaded %s, text found', (id, binary, words) => {
    const f = p.sim.context.corpus().snapshot.files.get(id)!;
    expect(f.binary).toBe(binary);
    expect(f.text.toLowerCase()).toContain(words.toLowerCase());
    expect(gw.log.some((l) => l.startsWith(`GET /v1/files/${id}/download`))).toBe(binary);
  });
});

describe('Permission evaluation: the platform walks from file to its permission entries to group memberships to the user', () => {
  it('USER entries grant that user', async () => {
    expect(await visible('bob@corp.test')).toContain('bob-only');
    expect(await visible('ann@corp.test')).not.toContain('bob-only');
  });
  it('GROUP entries grant members through nested groups (all ⊃ eng ⊃ sre ⊃ ann)', async () => {
    expect(await visible('ann@corp.test')).toEqual(expect.arrayContaining(['nested', 'sre-only', 'slides']));
    expect(await visible('dan@corp.test')).toContain('nested');
    expect(await visible('dan@corp.test')).not.toContain('sre-only');
  });
});

describe('Group member: direct member of a group; nested groups are resolved by the platform', () => {
  it('a member of a sub-group sees what the parent group was granted', async () => {
    expect(p.sim.context.corpus().snapshot.groups.find((g) => g.id === 'all')?.members).toEqual([
      { type: 'GROUP', id: 'eng' },
      { type: 'USER', id: 'u4' },
    ]);
    expect(await visible('ann@corp.test')).toContain('nested');
  });
});

describe('The entry with type GROUP, id * and action VIEW is the wildcard meaning any user; to make all content public every file returns that single entry', () => {
  it('every active user, and a person the gateway does not know, sees the wildcard file', async () => {
    for (const email of ['ann@corp.test', 'bob@corp.test', 'dan@corp.test', 'stranger@else.test']) expect(await visible(email)).toContain('pub');
    expect(await visible('stranger@else.test')).toEqual(['pub']);
  });
  it('USER * is no wildcard', async () => {
    expect(await visible('dan@corp.test')).not.toContain('odd');
  });
});

describe('Permission entry: action (only VIEW is supported); resource_permission is the only supported model and VIEW the only action', () => {
  it('an UPDATE entry grants nothing', async () => {
    expect(await visible('bob@corp.test')).not.toContain('odd');
  });
  it('a gateway declaring another model is not ingested; the previous ingest stays', async () => {
    gw.state.model = 'hierarchy_permission';
    const report = (await p.admin('/ingest', { method: 'POST' })).body;
    gw.state.model = 'resource_permission';
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/only resource_permission/);
    expect(p.sim.context.corpus().snapshot.files.size).toBe(6);
  });
});

describe('For per-file control, entries reference users or groups that the gateway also exposes through the user and group endpoints', () => {
  it('an entry naming a group the gateway does not serve grants nothing', async () => {
    for (const u of USERS) expect(await visible(u.primary_email_addr)).not.toContain('odd');
  });
  it('an inactive user sees nothing, not even the wildcard file', async () => {
    expect(await visible('cat@corp.test')).toEqual([]);
    expect(finalMessage((await p.ask('cat@corp.test', 'pancakes')).messages).citations).toEqual([]);
  });
});

describe('Files deleted or made invisible at the gateway disappear at the next ingest', () => {
  it('a deleted file, a file gone from the listing and a file whose access list was emptied leave the answers', async () => {
    const before = finalMessage((await p.ask('ann@corp.test', 'pager rota')).messages).citations.length;
    expect(before).toBeGreaterThan(0);
    gw.state.files.find((f) => f.id === 'nested')!.status = 'deleted';
    gw.state.files = gw.state.files.filter((f) => f.id !== 'slides');
    gw.state.files.find((f) => f.id === 'pub')!.permissions = [];
    const report = (await p.admin('/ingest', { method: 'POST' })).body;
    expect([...report.removed].sort()).toEqual(['nested', 'slides']);
    expect(await visible('ann@corp.test')).toEqual(['sre-only']);
    const urls = async (email: string, q: string) => finalMessage((await p.ask(email, q)).messages).citations.map((c: { url: string }) => c.url);
    expect(await urls('ann@corp.test', 'pager rota')).not.toContain('https://docs.example/nested');
    expect(await urls('ann@corp.test', 'all hands slides')).not.toContain('https://docs.example/slides');
    expect(await urls('dan@corp.test', 'pancakes canteen')).toEqual([]);
  });
});

describe('Content gateway authentication: an API key or OAuth 2.0 client credentials; requests use bearer authentication', () => {
  it('ingests with a token from the gateway token endpoint', async () => {
    gw.state.oauth = { clientId: 'platform', clientSecret: 's3cret' };
    const o = await startSimulator({
      gateway: { baseUrl: gw.url, auth: { kind: 'oauth', tokenUrl: `${gw.url}/oauth2/token`, clientId: 'platform', clientSecret: 's3cret' } },
    });
    try {
      expect((await o.sim.ingest()).status).toBe('succeeded');
    } finally {
      await o.close();
    }
  });
  it('a wrong key fails the ingest (401) and keeps nothing', async () => {
    const o = await startSimulator({ gateway: { baseUrl: gw.url, auth: { kind: 'api-key', key: 'wrong' } } });
    try {
      const report = await o.sim.ingest();
      expect(report.status).toBe('failed');
      expect(report.error).toMatch(/401/);
    } finally {
      await o.close();
    }
  });
});
