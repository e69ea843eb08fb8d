import type { Severity } from '../finding';

export interface CheckDefinition {
  id: string;
  /** The worst severity the check reports (`pass`: informational only). */
  severity: Severity;
  title: string;
}

/** Every check the harness runs, in report order. Ids are stable: tests and CI scripts name them. */
export const CHECKS: readonly CheckDefinition[] = [
  { id: 'crawl.endpoints', severity: 'fail', title: 'Every endpoint answers the crawl (identity endpoints that 404: warning, Public-to-all only)' },
  { id: 'crawl.transport', severity: 'fail', title: 'No connection errors or timeouts' },
  { id: 'contract.responses', severity: 'fail', title: 'Every response matches the contract: documented status, body schema, headers' },
  { id: 'contract.error-envelope', severity: 'fail', title: 'Every 4xx/5xx is {"error": {"code", "message"}} with the code its status goes with' },
  { id: 'auth.missing-key', severity: 'fail', title: 'No Authorization header → 401 AUTHENTICATION_FAILED on every endpoint' },
  { id: 'auth.wrong-key', severity: 'fail', title: 'A wrong key (Bearer or bare) → 401 AUTHENTICATION_FAILED on every endpoint' },
  { id: 'auth.header-forms', severity: 'fail', title: 'Both "Bearer <key>" and the bare key are accepted' },
  { id: 'paging.no-duplicates', severity: 'fail', title: 'No id is served twice across the pages of a listing' },
  { id: 'paging.absolute-next-link', severity: 'fail', title: '@odata.nextLink is an absolute URL (on another origin: warning)' },
  { id: 'paging.terminates', severity: 'fail', title: 'Following nextLinks ends (no link back to a page already read)' },
  { id: 'paging.top-is-maximum', severity: 'warn', title: 'No page is longer than the $top asked for' },
  { id: 'paging.odd-top', severity: 'fail', title: 'An odd $top crawls the same files as the default page size' },
  { id: 'paging.stable-crawls', severity: 'fail', title: 'Two consecutive crawls list the same files, users and groups' },
  { id: 'files.listed', severity: 'warn', title: 'The gateway lists at least one file' },
  { id: 'files.required-fields', severity: 'fail', title: 'Files carry id, name, external_url, last_modified_datetime, status, content.mime_type (+ download_path for binaries)' },
  { id: 'files.supported-mime', severity: 'fail', title: 'Only supported MIME types (HTML, PDF, DOCX, PPTX, TXT)' },
  { id: 'files.detail', severity: 'fail', title: '/v1/files/{id} answers 200 with the same id, MIME type and timestamp as the list' },
  { id: 'files.html-body', severity: 'fail', title: 'text/html files have a non-empty content.body on /v1/files/{id}' },
  { id: 'files.html-body-in-list', severity: 'warn', title: 'HTML bodies are not sent in list pages (wasted payload)' },
  { id: 'files.download', severity: 'fail', title: 'Every binary downloads (200)' },
  { id: 'files.checksum-sha256', severity: 'fail', title: 'Downloaded bytes match Checksum-SHA256 (lower-case hex)' },
  { id: 'files.content-length', severity: 'fail', title: 'Downloaded bytes match Content-Length' },
  { id: 'files.size-matches', severity: 'fail', title: 'Downloaded bytes match content.size' },
  { id: 'files.size-declared', severity: 'warn', title: 'Binaries declare content.size (lets the platform skip files over the cap)' },
  { id: 'files.sha1-matches', severity: 'fail', title: 'Downloaded bytes match content.sha1_hash, when given' },
  { id: 'files.download-content-type', severity: 'warn', title: 'Downloads are sent as their MIME type (or application/octet-stream)' },
  { id: 'files.size-limit', severity: 'warn', title: 'No file is over the platform\'s 25 MB cap (it would be rejected after download)' },
  { id: 'files.timestamp-stable', severity: 'fail', title: 'last_modified_datetime does not move between two crawls when nothing changed (no always-"now")' },
  { id: 'files.timestamp-plausible', severity: 'warn', title: 'last_modified_datetime is not in the future' },
  { id: 'permissions.metadata', severity: 'fail', title: '/v1/files/permissions/metadata declares model resource_permission' },
  { id: 'permissions.endpoint', severity: 'fail', title: 'Every active file\'s access list can be read' },
  { id: 'permissions.view-only', severity: 'fail', title: 'Access entries use action VIEW only' },
  { id: 'permissions.wildcard', severity: 'fail', title: 'The wildcard is only {type: GROUP, id: "*"} (USER * grants nothing)' },
  { id: 'permissions.non-empty', severity: 'warn', title: 'Active files have at least one access entry (else nobody can see them)' },
  { id: 'permissions.principals-resolve', severity: 'fail', title: 'Every access entry names a served user or group' },
  { id: 'groups.members-resolve', severity: 'fail', title: 'Every group member is a served user or group' },
  { id: 'groups.not-flattened', severity: 'fail', title: 'Members are direct: a group listing a sub-group does not also list the sub-group\'s users' },
  { id: 'groups.members-paged', severity: 'warn', title: 'Large groups are paged (at most 5,000 members a page)' },
  { id: 'groups.cycles', severity: 'warn', title: 'Groups do not contain themselves through nesting' },
  { id: 'users.email', severity: 'fail', title: 'Every user has a well-formed primary_email_addr' },
  { id: 'users.unique-email', severity: 'fail', title: 'No two users share an email' },
  { id: 'users.inactive', severity: 'pass', title: 'Inactive users, reported (they do not count as able to see)' },
  { id: 'robustness.malformed-top', severity: 'fail', title: 'A malformed $top gets a 4xx envelope, never a 5xx' },
  { id: 'robustness.query-options', severity: 'fail', title: 'Malformed options are refused or ignored (never a 5xx); unknown options are ignored' },
  { id: 'robustness.tampered-skiptoken', severity: 'fail', title: 'A tampered $skiptoken gets a 4xx envelope' },
  { id: 'robustness.unknown-id', severity: 'fail', title: 'Unknown file and group ids get a 4xx envelope' },
  { id: 'robustness.long-id', severity: 'fail', title: 'Over-long ids get a 4xx envelope' },
  { id: 'robustness.path-traversal', severity: 'fail', title: 'Path-traversal ids get a 4xx envelope and leak nothing' },
  { id: 'robustness.unknown-route', severity: 'fail', title: 'An unknown route gets a 4xx envelope' },
  { id: 'rate-limit.coherent', severity: 'fail', title: 'Rate-limit headers, when sent, are whole numbers with remaining ≤ limit' },
  { id: 'rate-limit.not-static', severity: 'fail', title: 'Rate-limit headers, when sent, are not static placeholders' },
  { id: 'rate-limit.retry-after', severity: 'fail', title: 'Every 429 carries Retry-After' },
  { id: 'access.expectations', severity: 'fail', title: 'The expectations file holds: these emails can, those cannot, see these files' },
];

export function checkDefinition(id: string): CheckDefinition | undefined {
  return CHECKS.find((c) => c.id === id);
}

/** The README's table of checks, generated from the catalog (a test keeps the README in step). */
export function checkTable(): string {
  const rows = CHECKS.map((c) => `| \`${c.id}\` | ${c.severity === 'pass' ? 'info' : c.severity} | ${c.title.replace(/\|/g, '\\|')} |`);
  return ['| Check | Worst | What it checks |', '|---|---|---|', ...rows].join('\n');
}
