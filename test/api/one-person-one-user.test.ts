import pino from 'pino';
import { EffectiveAccess } from '../../src/conformance/access/effective-access';
import { runSync } from '../../src/sync/run-sync';
import { crawlAccess } from '../helpers/crawl-access';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });
/** Served user ids go into paths raw: nothing in them may need percent-encoding. */
const PATH_SAFE_PERSON = /^person-[0-9a-f]{32}$/;

/**
 * One person, one served user: two sources naming Ana with different spellings of her email
 * (case, a full-width form, spaces) serve one user, every source's groups and access lists point
 * at it, and access one source revokes does not take away what the other grants.
 */
describe.each(databaseKinds)('one person, one user (%s staging, through the gateway API)', (kind) => {
  let gw: TestGateway;
  let clock: number;
  const sync = (source: ScriptedSource, mode: 'full' | 'auto' = 'full') => {
    clock += 60_000;
    return runSync(source, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode });
  };
  const crawl = () => crawlAccess(gw.url, TEST_KEYS[0]);
  const emailsWhoSee = async (fileId: string): Promise<string[]> => {
    const who = new EffectiveAccess(await crawl()).whoCanSee(fileId);
    return (who?.users ?? []).map((u) => u.email ?? u.id).sort();
  };

  /** Alpha knows Ana directly and through a group; Beta spells her email otherwise and shares one file with her. */
  function sources(): { alpha: ScriptedSource; beta: ScriptedSource } {
    const alpha = new ScriptedSource('alpha')
      .putUser({ nativeId: 'ana', email: 'Ana.Lima@Example.com', fullName: 'Ana Lima', active: true })
      .putUser({ nativeId: 'bo', email: 'bo@example.com', active: true })
      .putGroup({
        nativeId: 'eng',
        name: 'Eng',
        members: [
          { type: 'USER', nativeId: 'ana' },
          { type: 'USER', nativeId: 'bo' },
        ],
      })
      .html('direct', '<p>a</p>', [{ type: 'USER', nativeId: 'ana' }])
      .html('team', '<p>t</p>', [{ type: 'GROUP', nativeId: 'eng' }]);
    const beta = new ScriptedSource('beta')
      .putUser({ nativeId: '7', email: ' ａｎａ.ＬＩＭＡ@example.COM ', fullName: 'A. Lima', active: true })
      .putGroup({ nativeId: 'all', name: 'All', members: [{ type: 'USER', nativeId: '7' }] })
      .html('shared', '<p>s</p>', [{ type: 'USER', nativeId: '7' }])
      .html('via-group', '<p>g</p>', [{ type: 'GROUP', nativeId: 'all' }]);
    return { alpha, beta };
  }

  beforeEach(async () => {
    gw = await startTestGateway(kind);
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await gw.close();
  });

  it('serves one user for two sources naming the same person, with every group and access list pointing at it', async () => {
    const { alpha, beta } = sources();
    await sync(alpha);
    await sync(beta);
    const users = (await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string; primary_email_addr: string; state: string; full_name?: string }>;
    expect(users).toHaveLength(2);
    const ana = users.find((u) => u.primary_email_addr === 'Ana.Lima@Example.com');
    expect(ana).toMatchObject({ state: 'Active', full_name: 'Ana Lima' });
    expect(ana?.id).toMatch(PATH_SAFE_PERSON);
    const anaId = ana?.id as string;

    const permissions = async (id: string) =>
      ((await gw.get(`/v1/files/${id}/permissions`, AUTH)).body.value.permissions as Array<{ id: string; type: string }>).map((p) => `${p.type} ${p.id}`);
    expect(await permissions('alpha:direct')).toEqual([`USER ${anaId}`]);
    expect(await permissions('beta:shared')).toEqual([`USER ${anaId}`]);
    const members = async (id: string) =>
      ((await gw.get(`/v1/groups/${id}/members`, AUTH)).body.value as Array<{ id: string; type: string }>).map((m) => `${m.type} ${m.id}`);
    expect(await members('beta:all')).toEqual([`USER ${anaId}`]);
    expect(await members('alpha:eng')).toContain(`USER ${anaId}`);
    // The raw id works in a path as it is, and `$filter` finds the one user.
    expect((await gw.get(`/v1/users?$filter=id eq '${anaId}'`, AUTH)).body.value).toHaveLength(1);
    for (const file of ['alpha:direct', 'alpha:team', 'beta:shared', 'beta:via-group']) expect(await emailsWhoSee(file)).toContain('Ana.Lima@Example.com');
  });

  it('keeps the access another source grants when one source removes the person, and revokes it when both do', async () => {
    const { alpha, beta } = sources();
    await sync(alpha);
    await sync(beta);
    const before = (await gw.get('/v1/files/alpha:direct/permissions', AUTH)).body.value.last_modified_datetime as string;

    alpha.users.delete('ana'); // gone from Alpha's directory; its access list still names her
    await sync(alpha);
    const [ana] = ((await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string; primary_email_addr: string; state: string }>).filter(
      (u) => u.primary_email_addr === 'ana.LIMA@example.COM',
    );
    expect(ana).toMatchObject({ state: 'Active' }); // still active in Beta, now spoken for by Beta's account
    expect(await emailsWhoSee('beta:shared')).toEqual([ana?.primary_email_addr]);
    expect(await emailsWhoSee('beta:via-group')).toEqual([ana?.primary_email_addr]);
    // What Alpha revoked stays revoked: neither its access list nor its group serves her any more.
    expect(await emailsWhoSee('alpha:direct')).toEqual([]);
    expect(await emailsWhoSee('alpha:team')).toEqual(['bo@example.com']);
    const after = (await gw.get('/v1/files/alpha:direct/permissions', AUTH)).body.value.last_modified_datetime as string;
    expect(after > before).toBe(true); // the served access list changed, so its time moved

    beta.remove('user', '7');
    await sync(beta, 'auto');
    const users = (await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string; state: string }>;
    expect(users.find((u) => u.id === ana?.id)).toMatchObject({ state: 'Inactive' });
    expect(await emailsWhoSee('beta:shared')).toEqual([]);
    expect((await gw.get('/v1/files/beta:shared/permissions', AUTH)).body.value.permissions).toEqual([]);

    beta.putUser({ nativeId: '7', email: 'ANA.LIMA@example.com', active: true }); // back, another spelling again
    await sync(beta, 'auto');
    expect(((await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string; state: string }>).find((u) => u.id === ana?.id)).toMatchObject({
      state: 'Active',
    });
    expect(await emailsWhoSee('beta:shared')).toEqual(['ANA.LIMA@example.com']);
  });

  it('points an access list synced before its account at the person once the account arrives, and follows an email change', async () => {
    const beta = new ScriptedSource('beta').html('early', '<p>e</p>', [{ type: 'USER', nativeId: '9' }]);
    await sync(beta);
    expect((await gw.get('/v1/files/beta:early/permissions', AUTH)).body.value.permissions).toEqual([{ type: 'USER', id: 'beta:9', action: 'VIEW' }]);
    beta.putUser({ nativeId: '9', email: 'cy@example.com', active: true });
    await sync(beta, 'auto');
    const [cy] = (await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string }>;
    expect((await gw.get('/v1/files/beta:early/permissions', AUTH)).body.value.permissions).toEqual([{ type: 'USER', id: cy?.id, action: 'VIEW' }]);

    beta.putUser({ nativeId: '9', email: 'cy.new@example.com', active: true });
    await sync(beta, 'auto');
    const users = (await gw.get('/v1/users', AUTH)).body.value as Array<{ id: string; primary_email_addr: string; state: string }>;
    const moved = users.find((u) => u.primary_email_addr === 'cy.new@example.com');
    expect(users.find((u) => u.id === cy?.id)).toMatchObject({ state: 'Inactive' }); // the old address's user has no account left
    expect((await gw.get('/v1/files/beta:early/permissions', AUTH)).body.value.permissions).toEqual([{ type: 'USER', id: moved?.id, action: 'VIEW' }]);
  });

  it('lists a person with two accounts on one access list or in one group once, and pages through people by keyset', async () => {
    const alpha = new ScriptedSource('alpha')
      .putUser({ nativeId: 'a1', email: 'dee@example.com', active: true })
      .putUser({ nativeId: 'a2', email: 'DEE@example.com', active: true })
      .putGroup({
        nativeId: 'g',
        members: [
          { type: 'USER', nativeId: 'a1' },
          { type: 'USER', nativeId: 'a2' },
        ],
      })
      .html('both', '<p>b</p>', [
        { type: 'USER', nativeId: 'a1' },
        { type: 'USER', nativeId: 'a2' },
        { type: 'GROUP', nativeId: 'g' },
      ]);
    for (let i = 0; i < 7; i++) alpha.putUser({ nativeId: `p${i}`, email: `p${i}@example.com`, active: true });
    await sync(alpha);
    const permissions = (await gw.get('/v1/files/alpha:both/permissions', AUTH)).body.value.permissions as Array<{ type: string; id: string }>;
    expect(permissions.map((p) => p.type)).toEqual(['GROUP', 'USER']);
    expect(((await gw.get('/v1/groups/alpha:g/members', AUTH)).body.value as unknown[]).length).toBe(1);
    const paged = await crawl(); // pages of 2 through every collection
    expect(paged.users).toHaveLength(8);
    expect(new Set(paged.users.map((u) => u.id)).size).toBe(8);
    expect(paged.users.map((u) => u.id)).toEqual([...paged.users.map((u) => u.id)].sort());
  });
});
