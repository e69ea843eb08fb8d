import path from 'node:path';
import pino from 'pino';
import { createRestAdapter, type RestAdapter, restConfigFromEnv } from '../../../src/adapters/rest';
import { EffectiveAccess } from '../../../src/conformance/access/effective-access';
import { runSync } from '../../../src/sync/run-sync';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { crawlAccess } from '../../helpers/crawl-access';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { stagedAccess } from '../work-management/staged-access';

const logger = pino({ level: 'silent' });
const MANIFEST = path.join(__dirname, '../../../manifests/work-management.yaml');
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;

interface Exposure {
  /** (user, file) pairs the gateway grants and the oracle does not. */
  over: string[];
  /** Pairs the oracle grants and the gateway does not, outside the manifest's documented limits. */
  under: string[];
  /** Pairs left out by the documented limits (tasks in no project, their attachments, project files). */
  limited: number;
  files: number;
}

/** Whether the manifest's documented limits leave this object out: it reaches no task listed in a project. */
function outsideProjects(m: RunningMock, file: string): boolean {
  const store = m.mock.model;
  const [type, gid] = file.split(':') as [string, string];
  if (type === 'attachment') {
    const a = store.indexes.attachments.get(gid);
    if (!a || a.parentType === 'project') return true;
    return outsideProjects(m, `task:${a.parent}`);
  }
  const task = store.indexes.tasks.get(gid);
  return !task || task.memberships.length === 0;
}

/**
 * Who the gateway lets see each file, read as the platform reads it: a crawl of the running
 * gateway's /v1 (users, groups and members, files and their access lists), evaluated by the
 * platform's rules; keys are native ids, values the mock's user gids (found by email).
 */
async function crawledAccess(m: RunningMock, gw: TestGateway): Promise<Map<string, Set<string>>> {
  const gidByEmail = new Map([...m.mock.model.indexes.users.values()].map((u) => [u.email.toLowerCase(), u.gid]));
  const crawl = await crawlAccess(gw.url, TEST_KEYS[0]);
  const access = new EffectiveAccess(crawl);
  const everyone = crawl.users.filter((u) => u.state.toLowerCase() !== 'inactive').map((u) => u.email);
  const out = new Map<string, Set<string>>();
  for (const file of crawl.files) {
    if (file.status === 'deleted') continue;
    const who = access.whoCanSee(file.id);
    const emails = who?.everyone ? everyone : (who?.users ?? []).map((u) => u.email ?? '');
    out.set(file.id.replace(/^wm:/, ''), new Set(emails.map((e) => gidByEmail.get(e.toLowerCase()) ?? `unknown ${e}`)));
  }
  return out;
}

/** Over- and under-exposed (user, file) pairs: the crawled gateway's access against the mock's oracle (and staging's, which must agree). */
async function exposure(m: RunningMock, gw: TestGateway): Promise<Exposure> {
  const store = m.mock.model;
  const oracle = m.mock.oracle;
  const org = m.mock.organization.organization;
  const expected = new Map<string, Set<string>>();
  for (const task of store.indexes.tasks.values())
    if (task.workspace === org) expected.set(`task:${task.gid}`, new Set(oracle.visibleTo('task', task.gid) ?? []));
  for (const a of store.indexes.attachments.values()) {
    const workspace = a.parentType === 'task' ? store.indexes.tasks.get(a.parent)?.workspace : store.indexes.projects.get(a.parent)?.workspace;
    if (workspace === org && a.host === 'asana' && SUPPORTED.test(a.name))
      expected.set(`attachment:${a.gid}`, new Set(oracle.visibleTo('attachment', a.gid) ?? []));
  }
  const staged = await crawledAccess(m, gw);
  // What staging says and what the gateway serves are one and the same.
  expect(staged).toEqual(await stagedAccess(gw.database.db, 'wm'));
  const out: Exposure = { over: [], under: [], limited: 0, files: staged.size };
  for (const [file, got] of staged) {
    const want = expected.get(file) ?? new Set<string>();
    for (const user of got) if (!want.has(user)) out.over.push(`${user} ${file}`);
  }
  for (const [file, want] of expected) {
    const got = staged.get(file) ?? new Set<string>();
    for (const user of want) {
      if (got.has(user)) continue;
      if (outsideProjects(m, file)) out.limited += 1;
      else out.under.push(`${user} ${file}`);
    }
  }
  return out;
}

/**
 * The work-management manifest through the real sync engine into real staging, served by a real
 * gateway and crawled as the platform crawls it, compared pair by pair with the mock's visibility oracle (reference §6): project membership, privacy, teams with
 * limited access, portfolios that pass access on, followers, assignees, guests, inactive users.
 */
describe('the work-management manifest grants what the mock oracle grants', () => {
  let m: RunningMock;
  let gw: TestGateway;
  let adapter: RestAdapter;
  let clock = Date.parse('2026-06-01T00:00:00Z');
  let fullRequests = 0;

  const sync = async (mode: 'full' | 'auto') => {
    clock += 3600_000;
    await m.call('/_admin/rate-limits/reset', { method: 'POST', body: {} });
    const summary = await runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode });
    expect({ status: summary.status, error: summary.error, failures: summary.failures }).toEqual({ status: 'succeeded', error: undefined, failures: [] });
    return summary;
  };

  beforeAll(async () => {
    m = await startMock({ seed: 'rest-wm', size: { tasks: 240, portfolioAccessInheritanceRatio: 0.5, limitedAccessRatio: 0.1 } });
    gw = await startTestGateway('sqlite');
    const env = { REST_MANIFEST: MANIFEST, WM_BASE_URL: m.base, WM_TOKEN: m.mock.token, WM_WORKSPACE: m.mock.organization.organization };
    const config = restConfigFromEnv(env);
    adapter = createRestAdapter({ name: config.name, loaded: config.loaded, env });
  });
  afterAll(async () => {
    await m?.close();
    await gw?.close();
  });

  it('a full run: 0 over-exposed pairs, under-exposed only where the documented limits say', async () => {
    await sync('full');
    fullRequests = adapter.lastRun?.requests ?? 0;
    const result = await exposure(m, gw);
    expect(result.files).toBeGreaterThan(150);
    expect({ over: result.over.slice(0, 10), under: result.under.slice(0, 10) }).toEqual({ over: [], under: [] });
  });

  it('after changes at event loss 0.2 (a move, a removed member, a privacy change, a deleted task), an incremental run: still 0 over, 0 under', async () => {
    m.mock.setHostility({ eventLossRate: 0.2 });
    const store = m.mock.model;
    const org = m.mock.organization.organization;
    const admin = async (p: string, method: string, body?: unknown): Promise<void> => {
      const res = await m.call(p, { method, ...(body === undefined ? {} : { body }) });
      if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
    };
    const projects = [...store.indexes.projects.values()].filter((p) => p.workspace === org);
    const privateProject = projects.find((p) => p.privacySetting === 'private' && store.projects.userMembers(p.gid).length > 1) as { gid: string };
    const removed = store.projects.userMembers(privateProject.gid).find((u) => u !== store.indexes.projects.get(privateProject.gid)?.owner) as string;
    await admin(`/_admin/projects/${privateProject.gid}/members/${removed}`, 'DELETE');
    const teamOnly = projects.find((p) => p.privacySetting === 'private_to_team') as { gid: string };
    await admin(`/_admin/projects/${teamOnly.gid}`, 'PUT', { privacy_setting: 'public_to_workspace' });
    const publicProject = projects.find((p) => p.privacySetting === 'public_to_workspace' && p.gid !== teamOnly.gid) as { gid: string };
    const moved = [...store.indexes.tasks.values()].find(
      (task) => task.workspace === org && task.parent === null && task.memberships.length === 1 && task.memberships[0]?.project === privateProject.gid,
    );
    if (moved) await admin(`/_admin/tasks/${moved.gid}/move`, 'POST', { to: publicProject.gid });
    const withAttachment = [...store.indexes.tasks.values()].find(
      (task) =>
        task.workspace === org &&
        task.memberships.length > 0 &&
        task.gid !== moved?.gid &&
        (store.indexes.attachmentsByParent.get(task.gid) ?? []).some((a) => store.indexes.attachments.get(a)?.host === 'asana'),
    );
    if (withAttachment) await admin('/_admin/tasks/delete', 'POST', { gids: [withAttachment.gid] });
    const summary = await sync('auto');
    expect(summary.mode).toBe('incremental');
    // Only changed tasks are read again with their attachments: far fewer requests than a full run.
    expect(adapter.lastRun?.requests).toBeLessThan(fullRequests / 2);
    const result = await exposure(m, gw);
    expect({ over: result.over.slice(0, 10), under: result.under.slice(0, 10) }).toEqual({ over: [], under: [] });
  });
});
