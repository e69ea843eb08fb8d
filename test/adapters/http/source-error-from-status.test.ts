import { BODY_SNIPPET_MAX_CHARS, sourceErrorFromStatus } from '../../../src/adapters/http/source-error-from-status';
import {
  SourceAuthError,
  SourceError,
  SourceNotFoundError,
  SourcePermissionError,
  SourceRateLimitError,
  SourceRequestError,
  SourceUnavailableError,
} from '../../../src/adapters/source-error';

const url = 'https://user:pw@source.example.com/api/1.0/tasks/42?opt_fields=name&access_token=s3cret#frag';

describe('sourceErrorFromStatus', () => {
  it.each([
    [400, SourceRequestError, 'skip-item'],
    [401, SourceAuthError, 'abort'],
    [402, SourceRequestError, 'skip-item'],
    [403, SourcePermissionError, 'skip-item'],
    [404, SourceNotFoundError, 'skip-item'],
    [408, SourceUnavailableError, 'retry'],
    [409, SourceRequestError, 'skip-item'],
    [410, SourceNotFoundError, 'skip-item'],
    [412, SourceRequestError, 'skip-item'],
    [422, SourceRequestError, 'skip-item'],
    [429, SourceRateLimitError, 'retry'],
    [451, SourceRequestError, 'skip-item'],
    [500, SourceUnavailableError, 'retry'],
    [501, SourceUnavailableError, 'retry'],
    [502, SourceUnavailableError, 'retry'],
    [503, SourceUnavailableError, 'retry'],
    [504, SourceUnavailableError, 'retry'],
    [599, SourceUnavailableError, 'retry'],
    [302, SourceRequestError, 'skip-item'],
  ])('%i → %p (%s)', (status, type, action) => {
    const error = sourceErrorFromStatus(status, { url, body: '{"errors":[{"message":"Nope"}]}' });
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(SourceError);
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
    const error = sourceErrorFromStatus(429, { url, retryAfterMs: 30_000 });
    expect(error).toBeInstanceOf(SourceRateLimitError);
    expect((error as SourceRateLimitError).retryAfterMs).toBe(30_000);
    expect((sourceErrorFromStatus(429, { url }) as SourceRateLimitError).retryAfterMs).toBeUndefined();
  });

  it.each([
    ['no body', undefined, /for https:\/\/source\.example\.com\/api\/1\.0\/tasks\/42$/],
    ['an empty body', '', /42$/],
    ['whitespace', ' \n\t ', /42$/],
    ['a multi-line body', 'line one\n\n  line two', /42: line one line two$/],
  ])('formats %s', (_label, body, pattern) => {
    expect(sourceErrorFromStatus(404, { url, ...(body === undefined ? {} : { body }) }).message).toMatch(pattern);
  });

  it('names the status text', () => {
    expect(sourceErrorFromStatus(503, { url: 'https://s.example/x' }).message).toBe('Source answered 503 Service Unavailable for https://s.example/x');
  });

  it(`keeps at most ${BODY_SNIPPET_MAX_CHARS} characters of the upstream body`, () => {
    const body = `${'x'.repeat(BODY_SNIPPET_MAX_CHARS - 2)}😀${'y'.repeat(5_000)}`;
    const message = sourceErrorFromStatus(500, { url: 'https://s.example/x', body }).message;
    const snippet = message.slice(message.indexOf(': ') + 2);
    expect(snippet.length).toBeLessThanOrEqual(BODY_SNIPPET_MAX_CHARS);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).not.toMatch(/y/);
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('accepts a URL object and an unparseable string', () => {
    expect(sourceErrorFromStatus(400, { url: new URL('https://s.example/a?b=c') }).details.url).toBe('https://s.example/a');
    expect(sourceErrorFromStatus(400, { url: '/relative/path?token=t' }).details.url).toBe('/relative/path');
  });
});
