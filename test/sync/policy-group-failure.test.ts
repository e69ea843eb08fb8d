import pino from 'pino';
import type { UserRecord } from '../../src/adapters/adapter';
import { parsePolicy } from '../../src/policies/load-policy';
import { runSync } from '../../src/sync/run-sync';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const POLICY = parsePolicy(`version: 1
rules:
  - name: dept
    allow: user.department == doc.department
`);
const user = (nativeId: string, department: string): UserRecord => ({ nativeId, email: `${nativeId}@example.com`, active: true, attributes: { department } });

/**
 * The policy's groups are the engine's to compile: a source's own group failing under one of their
 * ids is refused like a source's group with such an id, so a member list it says it cannot resolve
 * (`membersAtMost`) never narrows a compiled group, which the run then writes back as compiled,
 * moving its `modified_at` without a change (and leaving it narrowed if the run stops in between).
 */
describe.each(databaseKinds)('a source group failing under a policy group’s id (%s staging)', (kind) => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startTestGateway(kind);
  });
  afterEach(async () => gw.close());

  it('narrows nothing of the compiled group', async () => {
    let clock = Date.parse('2026-07-01T00:00:00Z');
    const source = new ScriptedSource('hr');
    source.putUser(user('ana', 'eng')).putUser(user('bo', 'eng'));
    source.html('f1', '<p>1</p>', []);
    source.files.set('f1', { ...source.files.get('f1')!, attributes: { department: 'eng' } });
    const sync = (mode: 'full' | 'incremental') => {
      clock += 60_000;
      const at = clock;
      return runSync(
        source,
        { db: gw.database.db, blobs: gw.blobs, logger: pino({ level: 'silent' }), now: () => new Date(at) },
        { policy: POLICY, mode, batchSize: 1 },
      );
    };
    expect(await sync('full')).toMatchObject({ status: 'succeeded' });
    const compiled = async () => {
      const groups = (await gw.database.db('groups').where('native_id', 'like', 'policy-u-%').select('id', 'native_id', 'modified_at')) as Array<{
        id: string;
        native_id: string;
        modified_at: string;
      }>;
      const members = (await gw.database
        .db('group_members')
        .whereIn(
          'group_id',
          groups.map((g) => g.id),
        )
        .select('group_id', 'member_id')) as Array<{
        group_id: string;
        member_id: string;
      }>;
      return groups.map((g) => ({
        ...g,
        members: members
          .filter((m) => m.group_id === g.id)
          .map((m) => m.member_id)
          .sort(),
      }));
    };
    const before = await compiled();
    expect(before).toHaveLength(1);
    expect(before[0]!.members).toEqual(['hr:ana', 'hr:bo']);
    source.failGroup(before[0]!.native_id, new Error('an entry of type "robot"'), []);
    const summary = await sync('incremental');
    expect(summary).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { failed: 1 } });
    expect(await compiled()).toEqual(before);
    expect(summary.failures[0]).toMatch(/access policy's groups use/);
  });
});
