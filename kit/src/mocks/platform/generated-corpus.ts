/**
 * A small corpus for running without a gateway: a directory with nested groups and an inactive
 * user, and files of every kind the platform indexes, shared the five demo ways (public wildcard,
 * an all-staff group containing a sub-group, a department, HR, executives) plus a direct user grant.
 */
import type { AccessEntry, CorpusSnapshot, DirectoryGroup, DirectoryUser, IngestedFile } from './ingest/corpus-snapshot';
import { MIME } from './ingest/extract-text';

const DOMAIN = 'example.test';
const view = (type: 'USER' | 'GROUP', id: string): AccessEntry => ({ type, id, action: 'VIEW' });

export const GENERATED_USERS: readonly DirectoryUser[] = [
  { id: 'u-ada', email: `ada@${DOMAIN}`, fullName: 'Ada Park', state: 'Active' },
  { id: 'u-ben', email: `ben@${DOMAIN}`, fullName: 'Ben Ortiz', state: 'Active' },
  { id: 'u-cai', email: `cai@${DOMAIN}`, fullName: 'Cai Lund', state: 'Active' },
  { id: 'u-dee', email: `dee@${DOMAIN}`, fullName: 'Dee Moss', state: 'Active' },
  { id: 'u-eve', email: `eve@${DOMAIN}`, fullName: 'Eve Stone', state: 'Inactive' },
];

const GROUPS: readonly DirectoryGroup[] = [
  { id: 'g-all', name: 'All Staff', members: [view('GROUP', 'g-eng'), view('GROUP', 'g-hr'), view('USER', 'u-dee')] },
  { id: 'g-eng', name: 'Engineering', members: [view('GROUP', 'g-sre'), view('USER', 'u-ben'), view('USER', 'u-eve')] },
  { id: 'g-sre', name: 'Site Reliability', members: [view('USER', 'u-ada')] },
  { id: 'g-hr', name: 'People', members: [view('USER', 'u-cai')] },
  { id: 'g-exec', name: 'Executives', members: [view('USER', 'u-cai')] },
].map((g) => ({ ...g, members: g.members.map(({ type, id }) => ({ type, id })) }));

const file = (id: string, name: string, mimeType: string, text: string, permissions: AccessEntry[]): IngestedFile => ({
  id,
  name,
  externalUrl: `https://intranet.${DOMAIN}/docs/${id}`,
  lastModified: '2025-01-15T09:00:00.000Z',
  mimeType,
  text,
  permissions,
  binary: mimeType !== MIME.html,
});

const FILES: readonly IngestedFile[] = [
  file(
    'welcome',
    'Welcome handbook',
    MIME.html,
    'Welcome to the company. The office opens at 8 and the cafeteria serves lunch from noon. Ask the help desk for a laptop.',
    [view('GROUP', '*')],
  ),
  file(
    'expenses',
    'Expense policy',
    MIME.pdf,
    'Travel expenses are reimbursed within 30 days. Hotels up to 150 per night. Submit receipts in the finance tool.',
    [view('GROUP', 'g-all')],
  ),
  file(
    'oncall',
    'On-call runbook',
    MIME.docx,
    'The on-call engineer acknowledges a page within 5 minutes. Escalate to the incident commander after 30 minutes.',
    [view('GROUP', 'g-eng')],
  ),
  file('k8s', 'Cluster upgrade plan', MIME.pptx, 'The cluster upgrade happens in March. Nodes drain one zone at a time. Rollback takes ten minutes.', [
    view('GROUP', 'g-sre'),
  ]),
  file('salaries', 'Salary bands', MIME.docx, 'Salary bands are reviewed every April. Engineers band three earns between 70 and 90 thousand.', [
    view('GROUP', 'g-hr'),
  ]),
  file('board', 'Board meeting notes', MIME.html, 'The board approved the expansion budget. Revenue grew 12 percent this quarter.', [view('GROUP', 'g-exec')]),
  file(
    'holidays',
    'Holiday calendar',
    MIME.txt,
    'Public holidays: New Year, Easter Monday, Labour Day and the two Christmas days. The office closes between Christmas and New Year.',
    [view('GROUP', '*')],
  ),
  file('offsite', 'Offsite plan for Ben', MIME.txt, 'The engineering offsite is in Lisbon in June; Ben books the venue.', [
    view('USER', 'u-ben'),
    { type: 'USER', id: '*', action: 'VIEW' },
    { type: 'GROUP', id: 'g-exec', action: 'UPDATE' },
  ]),
];

export function generatedCorpus(now: string): CorpusSnapshot {
  return { files: new Map(FILES.map((f) => [f.id, f])), users: GENERATED_USERS, groups: GROUPS, ingestedAt: now, source: 'generated' };
}
