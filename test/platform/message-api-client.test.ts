import { DEPRECATED_MESSAGE_SEND_PATH, MESSAGE_SEND_PATH, MessageApiClient } from '../../src/platform/message-api-client';
import { DeprecatedEndpointError, PlatformAuthError, PlatformGoneError } from '../../src/platform/platform-error';
import { captureLogger } from '../helpers/capture-logger';
import { startSimulator, type RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';
import { recordingFetch, simulatedSleep } from './platform-fixtures';

let p: RunningSimulator;
beforeAll(async () => {
  p = await startSimulator({ now: () => Date.UTC(2025, 3, 1) });
});
afterAll(() => p.close());
afterEach(async () => {
  p.sim.setHostility({ rateLimitPerMinute: { message: 120 } });
  await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'message.send': 'legacy' } } });
});

const client = (extra: Partial<ConstructorParameters<typeof MessageApiClient>[0]> = {}) =>
  new MessageApiClient({ apiBaseUrl: p.origin, apiKey: p.sim.credentials.messageApiKey, logger: captureLogger().logger, requestsPerMinute: 0, ...extra });
const received = async () => (await p.admin('/messages')).body.messages as Array<{ path: string; message: string; recipients: string[] }>;

describe('Message API client', () => {
  it('sends through the legacy path; more than 500 recipients go in several requests', async () => {
    const rec = recordingFetch();
    const people = Array.from({ length: 1200 }, (_, i) => `person${i}@example.test`);
    await expect(client({ fetch: rec.fetch }).send('<p>Content is live</p>', people)).resolves.toEqual(['RECEIVED', 'RECEIVED', 'RECEIVED']);
    expect(rec.sent.map((s) => [s.method, new URL(s.url).pathname])).toEqual(Array(3).fill(['POST', MESSAGE_SEND_PATH]));
    const got = (await received()).slice(-3);
    expect(got.map((m) => m.recipients.length)).toEqual([500, 500, 200]);
    expect(got.flatMap((m) => m.recipients)).toEqual(people);
  });

  it('refuses the deprecated v1beta1 path unless forced, naming the stable replacement, before sending anything', async () => {
    const rec = recordingFetch();
    let error: unknown;
    try {
      client({ path: DEPRECATED_MESSAGE_SEND_PATH, fetch: rec.fetch });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DeprecatedEndpointError);
    expect((error as DeprecatedEndpointError).replacement).toBe('/rest/v1/messages/send');
    expect((error as Error).message).toMatch(/deprecated since 2023-01-31.*use POST \/rest\/v1\/messages\/send/);
    expect(rec.sent).toHaveLength(0);
  });

  it("forced onto the deprecated path: it sends, and says so in the log (its own warning and the platform's)", async () => {
    const log = captureLogger();
    const c = client({ path: DEPRECATED_MESSAGE_SEND_PATH, forceDeprecated: true, logger: log.logger });
    await expect(c.send('hello', ['ada@example.test'])).resolves.toEqual(['RECEIVED']);
    expect((await received()).at(-1)!.path).toBe(DEPRECATED_MESSAGE_SEND_PATH);
    expect(log.warnings()).toHaveLength(2);
    expect(log.warnings().every((w) => /deprecated/.test(w))).toBe(true);
  });

  it('a wrong key, a removed path and bad recipients are typed errors', async () => {
    await expect(client({ apiKey: 'wrong' }).send('hi', ['a@example.test'])).rejects.toBeInstanceOf(PlatformAuthError);
    await expect(client().send('hi', ['not an email'])).rejects.toThrow(/Not an email address/);
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'message.send': 'removed' } } });
    await expect(client().send('hi', ['a@example.test'])).rejects.toBeInstanceOf(PlatformGoneError);
  });

  it('over the 120-a-minute limit, a 429 is waited out and repeated (the platform did not act on it)', async () => {
    p.sim.setHostility({ rateLimitPerMinute: { message: 2 } });
    const clock = simulatedSleep(p);
    const before = (await received()).length;
    const c = client({ sleep: clock.sleep });
    for (let i = 0; i < 5; i++) await c.send(`note ${i}`, ['ada@example.test']);
    expect((await received()).slice(before).map((m) => m.message)).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4']);
    expect(clock.waits.length).toBeGreaterThan(0);
  });
});
