import type { Logger } from '../logging/create-logger';

/**
 * Warns, once per endpoint, of a change the platform has announced for it (seed: Versioning: an
 * experimental endpoint changes with at least 14 days notice; a deprecated one is scheduled for
 * removal): the answer's `Sunset` (RFC 8594: the endpoint goes away then) or
 * `X-Api-Change-Notice` (`<stage>; date=<ISO date>`). The operator sees the date while the
 * endpoint still works, instead of a 410 on the day.
 */
export class LifecycleNotices {
  private readonly warned = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly api: string,
  ) {}

  /** Looks at one answer's headers for `method path` and warns the first time a notice appears. */
  check(method: string, url: string, headers: Headers): void {
    const sunset = headers.get('sunset');
    const notice = headers.get('x-api-change-notice');
    if (!sunset && !notice) return;
    const path = new URL(url, 'http://platform.invalid').pathname;
    const endpoint = `${method} ${path}`;
    const stage = /^\s*([a-z]+)/i.exec(notice ?? '')?.[1] ?? (sunset ? 'removed' : 'changed');
    const date = /date=([^;,\s]+)/.exec(notice ?? '')?.[1] ?? (sunset ? new Date(sunset).toISOString() : 'a date not given');
    // One warning per announced change (a list endpoint is called with many ids: one line, not one per id).
    const key = `${method} ${stage} ${date}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(
      { endpoint, stage, date },
      `${this.api.charAt(0).toUpperCase()}${this.api.slice(1)} API: the platform announced that ${endpoint} will be ${stage} on ${date}${stage === 'removed' ? ': move off it before then' : ''}`,
    );
  }
}
