import { z } from 'zod';
import { setting } from './setting-spec';
import { positiveInt, bool } from './setting-values';

/** How lists are served: page sizes, HTML bodies, signed cursors; and the demo corpus. */
export const servingSettings = {
  pageSizeDefault: setting({
    env: 'PAGE_SIZE_DEFAULT',
    schema: positiveInt,
    default: '100',
    description: 'Page size when a request has no `$top`.',
  }),
  pageSizeMax: setting({
    env: 'PAGE_SIZE_MAX',
    schema: positiveInt,
    default: '1000',
    description: 'Ceiling that `$top` is clamped to (a larger `$top` is not an error; the page is just shorter).',
  }),
  includeHtmlBodyInList: setting({
    env: 'INCLUDE_HTML_BODY_IN_LIST',
    schema: bool,
    default: 'false',
    description: 'Also send `content.body` of HTML files in `/v1/files` lists (the platform reads it from `/v1/files/{id}`; off saves payload).',
  }),
  skipTokenSecret: setting({
    env: 'SKIPTOKEN_SECRET',
    schema: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    description:
      'HMAC secret that signs `$skiptoken` cursors. Unset: a random secret is created once and kept in the staging database, so every replica on the same database shares it.',
    secret: true,
  }),
  demoContent: setting({
    env: 'DEMO_CONTENT',
    schema: z.enum(['auto', 'off']),
    default: 'auto',
    description: '`auto`: on start-up, load the bundled demo corpus into an empty embedded SQLite database. `off`: never.',
  }),
} as const;
