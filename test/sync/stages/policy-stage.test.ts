import pino from 'pino';
import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { parsePolicy } from '../../../src/policies/load-policy';
import { PolicyStage } from '../../../src/sync/stages/policy-stage';
import { ScriptedSource } from '../../helpers/scripted-adapter';

const POLICY = parsePolicy('version: 1\nrules:\n  - name: same-team\n    allow: user.team == doc.team\n');
const ctx: AdapterContext = { logger: pino({ level: 'silent' }), signal: new AbortController().signal, now: () => new Date() };

async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
  const out: SyncEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe("the access policy's stage of a full run", () => {
  it('gives files their class group, and yields the groups, then the last checkpoint, at the end', async () => {
    const source = new ScriptedSource('team-src');
    source.checkpointEvery = 1;
    source.putUser({ nativeId: 'u1', email: 'u1@example.com', active: true, attributes: { team: 'a' } });
    source.putGroup({ nativeId: 'own', members: [{ type: 'USER', nativeId: 'u1' }] });
    source.html('f1', '<p>one</p>', [{ type: 'USER', nativeId: 'u9' }], { attributes: { team: 'a' } });
    const events = await collect(PolicyStage.fresh(POLICY, source.name).apply(source.full(ctx)));
    expect(events.map((e) => e.type)).toEqual(['user', 'group', 'file', 'group', 'group', 'checkpoint']);
    const file = events.find((e): e is Extract<SyncEvent, { type: 'file' }> => e.type === 'file');
    expect(file?.file.access).toEqual([
      { type: 'USER', nativeId: 'u9' },
      { type: 'GROUP', nativeId: expect.stringMatching(/^policy-d-[0-9a-f]{20}$/) },
    ]);
    expect(events.at(-1)).toEqual({ type: 'checkpoint', checkpoint: { position: 3 } });
  });

  it("refuses a source's own group whose id takes the policy groups' prefix", async () => {
    const source = new ScriptedSource('team-src');
    source.putGroup({ nativeId: 'policy-u-0123', members: [] });
    const events = await collect(PolicyStage.fresh(POLICY, source.name).apply(source.full(ctx)));
    expect(events[0]).toMatchObject({
      type: 'failure',
      kind: 'group',
      nativeId: 'policy-u-0123',
      error: { message: expect.stringContaining('which the access policy') },
    });
  });
});
