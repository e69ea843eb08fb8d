import { BODY_SNIPPET_MAX_CHARS, remoteErrorFromStatus } from '../../src/outbound-http/remote-error-from-status';
import {
  RemoteAuthError,
  RemoteError,
  RemoteNotFoundError,
  RemotePermissionError,
  RemoteRateLimitError,
  RemoteRequestError,
  RemoteUnavailableError,
} from '../../src/outbound-http/remote-error';

const url = 'https://user:pw@source.example.com/api/1.0/tasks/42?opt_fields=name&access_token=s3cret#frag';

describe('remoteErrorFromStatus', () => {
  it.each([
    [400, RemoteRequestError, 'skip-item'],
    [401, RemoteAuthError, 'abort'],
    [402, RemoteRequestError, 'skip-item'],
    [403, RemotePermissionError, 'skip-item'],
    [404, RemoteNotFoundError, 'skip-item'],
    [408, RemoteUnavailableError, 'retry'],
    [409, RemoteRequestError, 'skip-item'],
    [410, RemoteNotFoundError, 'skip-item'],
    [412, RemoteRequestError, 'skip-item'],
    [422, RemoteRequestError, 'skip-item'],
    [429, RemoteRateLimitError, 'retry'],
    [451, RemoteRequestError, 'skip-item'],
    [500, RemoteUnavailableError, 'retry'],
    [501, RemoteUnavailableError, 'retry'],
    [502, RemoteUnavailableError, 'retry'],
    [503, RemoteUnavailableError, 'retry'],
    [504, RemoteUnavailableError, 'retry'],
    [599, RemoteUnavailableError, 'retry'],
    [302, RemoteRequestError, 'skip-item'],
  ])('%i → %p (%s)', (status, type, action) => {
    const error = remoteErrorFromStatus(status, { url, body: '{"errors":[{"message":"Nope"}]}' });
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(RemoteError);
    expect(error.constructor).toBe(type);
    expect(error.name).toBe(type.name);
    expect(error.action).toBe(action);
    expect(error.details).toEqual({ status, url: 'https://source.example.com/api/1.0/tasks/42' });
    expect(error.message).toContain(String(status));
    expect(error.message).toContain('https://source.example.com/api/1.0/tasks/42');
    expect(error.message).toContain('{"errors":[{"message":"Nope"}]}');
    expect(error.message).not.toMatch(/s3cret|opt_fields|\?|#frag|pw@/);
  });

  it('carries Retry-After on a rate-limit error', () => {
    const error = remoteErrorFromStatus(429, { url, retryAfterMs: 30_000 });
    expect(error).toBeInstanceOf(RemoteRateLimitError);
    expect((error as RemoteRateLimitError).retryAfterMs).toBe(30_000);
    expect((remoteErrorFromStatus(429, { url }) as RemoteRateLimitError).retryAfterMs).toBeUndefined();
  });

  it.each([
    ['no body', undefined, /for https:\/\/source\.example\.com\/api\/1\.0\/tasks\/42$/],
    ['an empty body', '', /42$/],
    ['whitespace', ' \n\t ', /42$/],
    ['a multi-line body', 'line one\n\n  line two', /42: line one line two$/],
  ])('formats %s', (_label, body, pattern) => {
    expect(remoteErrorFromStatus(404, { url, ...(body === undefined ? {} : { body }) }).message).toMatch(pattern);
  });

  it('names the status text', () => {
    expect(remoteErrorFromStatus(503, { url: 'https://s.example/x' }).message).toBe('Remote answered 503 Service Unavailable for https://s.example/x');
  });

  it(`keeps at most ${BODY_SNIPPET_MAX_CHARS} characters of the upstream body`, () => {
    const body = `${'x'.repeat(BODY_SNIPPET_MAX_CHARS - 2)}😀${'y'.repeat(5_000)}`;
    const message = remoteErrorFromStatus(500, { url: 'https://s.example/x', body }).message;
    const snippet = message.slice(message.indexOf(': ') + 2);
    expect(snippet.length).toBeLessThanOrEqual(BODY_SNIPPET_MAX_CHARS);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).not.toMatch(/y/);
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('accepts a URL object and an unparseable string', () => {
    expect(remoteErrorFromStatus(400, { url: new URL('https://s.example/a?b=c') }).details.url).toBe('https://s.example/a');
    expect(remoteErrorFromStatus(400, { url: '/relative/path?token=t' }).details.url).toBe('/relative/path');
  });
});
