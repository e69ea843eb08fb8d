import { redactUrl } from '../outbound-http/redact-url';
import type { NextLinkError, NextLinkProblem } from '../lib/follow-next-links';
import { PlatformResponseError } from './platform-error';

const PROBLEMS: Record<NextLinkProblem, string> = {
  loop: 'the @odata.nextLink chain loops',
  'too-many-pages': 'it goes on past the page limit',
  'not-a-string': '@odata.nextLink is not a string',
  'not-a-url': '@odata.nextLink is not a URL',
};

/** A walk of `api`'s pages that stopped short, as the platform clients' typed error (the URL without its query). */
export function nextLinkFailure(api: string, error: NextLinkError): PlatformResponseError {
  return new PlatformResponseError(`${api} pagination stopped: ${PROBLEMS[error.problem]}`, { url: redactUrl(error.url), cause: error });
}
