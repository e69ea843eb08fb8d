import type { Profile } from '../conformance-profile';
import type { Severity } from '../finding';

/** How one profile judges a check: its worst severity, and the source rule it enforces. */
export interface ProfileRule {
  /** The worst severity the check reports under this profile (`pass`: informational only). */
  severity: Severity;
  /** The rule enforced, with the reference tag of its source (`[GW-VAL-new] validate_auth`). */
  rule: string;
}

export interface CheckDefinition {
  id: string;
  title: string;
  platform: ProfileRule;
  strict: ProfileRule;
}

/**
 * Every check the harness runs, in report order, with how each profile judges it. Ids are stable:
 * tests and CI scripts name them. Source tags are those of `shared/reference/content-gateway.md` §0
 * (GW-* the platform's starter kit, DOC-* its documentation).
 */
export const CHECKS: readonly CheckDefinition[] = [
  {
    id: 'crawl.endpoints',
    title: 'Every endpoint answers the crawl (identity endpoints that 404: warning, Public-to-all only)',
    platform: { severity: 'fail', rule: '[DOC-OPS] every sync walks files, metadata, permissions, groups, members, users' },
    strict: { severity: 'fail', rule: 'every operation of content-gateway.yaml' },
  },
  {
    id: 'crawl.transport',
    title: 'No connection errors or timeouts',
    platform: { severity: 'fail', rule: '[DOC-CONNECT] the gateway is reachable over HTTPS' },
    strict: { severity: 'fail', rule: '[DOC-CONNECT] the gateway is reachable over HTTPS' },
  },
  {
    id: 'contract.responses',
    title: "Every response matches the profile's contract: documented status, body schema, required headers",
    platform: { severity: 'fail', rule: 'platform-gateway.yaml, restating [GW-OAS] and [GW-VAL-new]' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml' },
  },
  {
    id: 'contract.error-envelope',
    title: 'Every 4xx/5xx is {"error": {"code", "message"}} with the code its status goes with',
    platform: { severity: 'fail', rule: '[GW-OAS] ErrorResponse; codes outside the [DOC-ERRORS] table: warning' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml Error: our codes only, each with its status' },
  },
  {
    id: 'auth.missing-key',
    title: 'No Authorization header → 401 AUTHENTICATION_FAILED on every endpoint',
    platform: { severity: 'fail', rule: '[GW-VAL-new] validate_auth' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] validate_auth' },
  },
  {
    id: 'auth.wrong-key',
    title: 'A wrong key (Bearer or bare) → 401 AUTHENTICATION_FAILED on every endpoint',
    platform: { severity: 'fail', rule: '[GW-VAL-new] validate_auth' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] validate_auth' },
  },
  {
    id: 'auth.header-forms',
    title: 'Both "Bearer <key>" and the bare key are accepted',
    platform: { severity: 'fail', rule: '[DOC-AUTH] the key is the Authorization value; [GW-CG-new] accepts both forms' },
    strict: { severity: 'fail', rule: '[DOC-AUTH] the key is the Authorization value; [GW-CG-new] accepts both forms' },
  },
  {
    id: 'paging.no-duplicates',
    title: 'No id is served twice across the pages of a listing',
    platform: { severity: 'fail', rule: '[DOC-OPS] the platform follows the chain and indexes what it reads' },
    strict: { severity: 'fail', rule: '[DOC-OPS] the platform follows the chain and indexes what it reads' },
  },
  {
    id: 'paging.absolute-next-link',
    title: '@odata.nextLink is an absolute URL (on another origin: warning)',
    platform: { severity: 'fail', rule: '[GW-CG-new] absolute nextLink from the request root' },
    strict: { severity: 'fail', rule: '[GW-CG-new] absolute nextLink from the request root' },
  },
  {
    id: 'paging.terminates',
    title: 'Following nextLinks ends (no link back to a page already read)',
    platform: { severity: 'fail', rule: '[DOC-OPS] follows @odata.nextLink until it is absent' },
    strict: { severity: 'fail', rule: '[DOC-OPS] follows @odata.nextLink until it is absent' },
  },
  {
    id: 'paging.top-is-maximum',
    title: 'No page is longer than the $top asked for',
    platform: { severity: 'warn', rule: '[DOC-OPS] a page may be shorter than $top, not longer' },
    strict: { severity: 'warn', rule: '[DOC-OPS] a page may be shorter than $top, not longer' },
  },
  {
    id: 'paging.odd-top',
    title: 'An odd $top crawls the same files as the default page size',
    platform: { severity: 'fail', rule: "[GW-OAS] $top is the page size; the platform's own is undocumented" },
    strict: { severity: 'fail', rule: "[GW-OAS] $top is the page size; the platform's own is undocumented" },
  },
  {
    id: 'paging.stable-crawls',
    title: 'Two consecutive crawls list the same files, users and groups',
    platform: { severity: 'fail', rule: '[DOC-OPS] every sync is a full walk: an id missing once is deleted' },
    strict: { severity: 'fail', rule: '[DOC-OPS] every sync is a full walk: an id missing once is deleted' },
  },
  {
    id: 'files.listed',
    title: 'The gateway lists at least one file',
    platform: { severity: 'warn', rule: '[GW-VAL-new] "Returns at least one file"' },
    strict: { severity: 'warn', rule: '[GW-VAL-new] "Returns at least one file"' },
  },
  {
    id: 'files.required-fields',
    title: 'Files carry id, name, external_url, last_modified_datetime, content.mime_type, a valid status when given (+ download_path for binaries)',
    platform: { severity: 'fail', rule: '[GW-OAS] Node; [GW-VAL-new] validate_files (status optional)' },
    strict: { severity: 'fail', rule: '[GW-OAS] Node; [GW-VAL-new] validate_files (status optional)' },
  },
  {
    id: 'files.supported-mime',
    title: 'Only supported MIME types (HTML, PDF, DOCX, PPTX, TXT)',
    platform: { severity: 'fail', rule: '[DOC-MIME] HTML, PDF, DOCX, PPTX, TXT' },
    strict: { severity: 'fail', rule: '[DOC-MIME] HTML, PDF, DOCX, PPTX, TXT' },
  },
  {
    id: 'files.detail',
    title: '/v1/files/{id} answers 200 with the same id, MIME type and timestamp as the list',
    platform: { severity: 'fail', rule: '[GW-VAL-new] validate_single_file: 200, same id' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] validate_single_file: 200, same id' },
  },
  {
    id: 'files.html-body',
    title: 'text/html files have a non-empty content.body on /v1/files/{id}',
    platform: { severity: 'fail', rule: '[GW-VAL-new] inline body on /files/{id}; [DOC-MIME]' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] inline body on /files/{id}; [DOC-MIME]' },
  },
  {
    id: 'files.external-url-openable',
    title: 'external_url is an http(s) URL people can open from a result (file:// paths: warning)',
    platform: { severity: 'warn', rule: '[GW-OAS] external_url: where a result sends the user' },
    strict: { severity: 'warn', rule: '[GW-OAS] external_url: where a result sends the user' },
  },
  {
    id: 'files.html-body-in-list',
    title: 'HTML bodies are not sent in list pages (wasted payload)',
    platform: { severity: 'warn', rule: '[GW-VAL-new] and [DOC-PITFALLS]: bodies in the list are wasted payload' },
    strict: { severity: 'warn', rule: '[GW-VAL-new] and [DOC-PITFALLS]: bodies in the list are wasted payload' },
  },
  {
    id: 'files.download',
    title: 'Every binary downloads (200)',
    platform: { severity: 'fail', rule: '[GW-OAS] /files/{id}/download' },
    strict: { severity: 'fail', rule: '[GW-OAS] /files/{id}/download' },
  },
  {
    id: 'files.checksum-sha256',
    title: 'Downloaded bytes match Checksum-SHA256 (lower-case hex)',
    platform: { severity: 'fail', rule: '[GW-OAS] Checksum-SHA256, lower-case hex in the example; absent: warning (not marked required)' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: required' },
  },
  {
    id: 'files.content-length',
    title: 'Downloaded bytes match Content-Length',
    platform: { severity: 'fail', rule: '[GW-OAS] Content-Length; absent: warning (chunked is valid HTTP)' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: required' },
  },
  {
    id: 'files.size-matches',
    title: 'Downloaded bytes match content.size',
    platform: { severity: 'fail', rule: "[GW-OAS] content.size is the file's size in bytes" },
    strict: { severity: 'fail', rule: "[GW-OAS] content.size is the file's size in bytes" },
  },
  {
    id: 'files.size-declared',
    title: 'Binaries declare content.size (lets the platform skip files over the cap)',
    platform: { severity: 'warn', rule: '[GW-OAS] size recommended: lets the platform skip files over the cap' },
    strict: { severity: 'warn', rule: '[GW-OAS] size recommended: lets the platform skip files over the cap' },
  },
  {
    id: 'files.sha1-matches',
    title: 'Downloaded bytes match content.sha1_hash, when given',
    platform: { severity: 'fail', rule: '[GW-OAS] content.sha1_hash (any case)' },
    strict: { severity: 'fail', rule: '[GW-OAS] content.sha1_hash (any case)' },
  },
  {
    id: 'files.download-content-type',
    title: 'Downloads are sent as their MIME type (or application/octet-stream)',
    platform: { severity: 'warn', rule: "[GW-OAS] Content-Type is the file's MIME type" },
    strict: { severity: 'warn', rule: "[GW-OAS] Content-Type is the file's MIME type" },
  },
  {
    id: 'files.size-limit',
    title: "No file is over the platform's 25 MB cap (it would be rejected after download)",
    platform: { severity: 'warn', rule: '[GW-CG-new] 25 MB cap' },
    strict: { severity: 'warn', rule: '[GW-CG-new] 25 MB cap' },
  },
  {
    id: 'files.timestamp-stable',
    title: 'last_modified_datetime does not move between two crawls when nothing changed (no always-"now")',
    platform: { severity: 'fail', rule: '[DOC-PITFALLS] an always-"now" timestamp re-downloads everything' },
    strict: { severity: 'fail', rule: '[DOC-PITFALLS] an always-"now" timestamp re-downloads everything' },
  },
  {
    id: 'files.timestamp-plausible',
    title: 'last_modified_datetime is not in the future',
    platform: { severity: 'warn', rule: '[DOC-PITFALLS] accurate timestamps' },
    strict: { severity: 'warn', rule: '[DOC-PITFALLS] accurate timestamps' },
  },
  {
    id: 'permissions.metadata',
    title: '/v1/files/permissions/metadata declares model resource_permission',
    platform: { severity: 'fail', rule: '[GW-VAL-new] validate_permissions_metadata' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] validate_permissions_metadata' },
  },
  {
    id: 'permissions.endpoint',
    title: "Every active file's access list can be read",
    platform: { severity: 'fail', rule: '[GW-CG-new] one permissions call per file per sync' },
    strict: { severity: 'fail', rule: '[GW-CG-new] one permissions call per file per sync' },
  },
  {
    id: 'permissions.view-only',
    title: 'Access entries use action VIEW only',
    platform: { severity: 'fail', rule: '[DOC-PERMS] only VIEW is evaluated; [GW-VAL-new] fails other actions' },
    strict: { severity: 'fail', rule: '[DOC-PERMS] only VIEW is evaluated; [GW-VAL-new] fails other actions' },
  },
  {
    id: 'permissions.wildcard',
    title: 'The wildcard is only {type: GROUP, id: "*"} (USER * grants nothing)',
    platform: { severity: 'warn', rule: '[GW-VAL-new] warns: only {type: GROUP, id: "*"} is the wildcard' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: USER * is never served' },
  },
  {
    id: 'permissions.non-empty',
    title: 'Active files have at least one access entry (else nobody can see them)',
    platform: { severity: 'warn', rule: '[GW-VAL-new] "At least one permission entry"' },
    strict: { severity: 'warn', rule: '[GW-VAL-new] "At least one permission entry"' },
  },
  {
    id: 'permissions.principals-resolve',
    title: 'Every access entry names a served user or group',
    platform: { severity: 'fail', rule: '[DOC-PERMS] entries name users and groups the gateway serves' },
    strict: { severity: 'fail', rule: '[DOC-PERMS] entries name users and groups the gateway serves' },
  },
  {
    id: 'groups.members-resolve',
    title: 'Every group member is a served user or group',
    platform: { severity: 'fail', rule: '[DOC-PERMS] members are users or groups the gateway serves' },
    strict: { severity: 'fail', rule: '[DOC-PERMS] members are users or groups the gateway serves' },
  },
  {
    id: 'groups.not-flattened',
    title: "Members are direct: a group listing a sub-group does not also list the sub-group's users",
    platform: { severity: 'fail', rule: '[DOC-PERMS] [GW-OAS] direct members only, no recursion' },
    strict: { severity: 'fail', rule: '[DOC-PERMS] [GW-OAS] direct members only, no recursion' },
  },
  {
    id: 'groups.members-paged',
    title: 'Large groups are paged (at most 5,000 members a page)',
    platform: { severity: 'warn', rule: '[DOC-PITFALLS] pages of 1,000-5,000 members' },
    strict: { severity: 'warn', rule: '[DOC-PITFALLS] pages of 1,000-5,000 members' },
  },
  {
    id: 'groups.cycles',
    title: 'Groups do not contain themselves through nesting',
    platform: { severity: 'warn', rule: '[DOC-PERMS] nesting is resolved by the platform' },
    strict: { severity: 'warn', rule: '[DOC-PERMS] nesting is resolved by the platform' },
  },
  {
    id: 'users.email',
    title: 'Every user has a well-formed primary_email_addr',
    platform: { severity: 'fail', rule: '[GW-VAL-new] primary_email_addr; [DOC-CONNECT] the join key' },
    strict: { severity: 'fail', rule: '[GW-VAL-new] primary_email_addr; [DOC-CONNECT] the join key' },
  },
  {
    id: 'users.unique-email',
    title: 'No two users share an email',
    platform: { severity: 'fail', rule: '[DOC-CONNECT] users are mapped by email' },
    strict: { severity: 'fail', rule: '[DOC-CONNECT] users are mapped by email' },
  },
  {
    id: 'users.inactive',
    title: 'Inactive users, reported (they do not count as able to see)',
    platform: { severity: 'pass', rule: '[GW-OAS] state Active | Inactive' },
    strict: { severity: 'pass', rule: '[GW-OAS] state Active | Inactive' },
  },
  {
    id: 'robustness.malformed-top',
    title: 'A malformed $top never gets a 5xx, an endless chain or a shortened listing (strict: a 4xx envelope)',
    platform: { severity: 'fail', rule: '[GW-OAS] $top integer: refused or ignored, but never a 5xx, an endless chain or dropped items' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: $top is an integer ≥ 1, else 400' },
  },
  {
    id: 'robustness.query-options',
    title: 'Malformed options are refused or ignored (never a 5xx); unknown options are ignored',
    platform: { severity: 'fail', rule: '§1.0: accept and ignore unsupported options; never a 5xx' },
    strict: { severity: 'fail', rule: '§1.0: accept and ignore unsupported options; never a 5xx' },
  },
  {
    id: 'robustness.tampered-skiptoken',
    title: 'A tampered $skiptoken gets a 4xx envelope',
    platform: { severity: 'fail', rule: "[GW-OAS] $skiptoken is the server's own cursor" },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: signed cursors' },
  },
  {
    id: 'robustness.unknown-id',
    title: 'Unknown file and group ids get a 4xx envelope (an empty 200 list: warning)',
    platform: { severity: 'fail', rule: '[GW-CG-new] unknown file → 404 NOT_FOUND' },
    strict: { severity: 'fail', rule: '[GW-CG-new] unknown file → 404 NOT_FOUND' },
  },
  {
    id: 'robustness.long-id',
    title: 'Over-long ids get a 4xx envelope (an empty 200 list: warning)',
    platform: { severity: 'fail', rule: '[GW-CG-new] unknown file → 404 NOT_FOUND' },
    strict: { severity: 'fail', rule: '[GW-CG-new] unknown file → 404 NOT_FOUND' },
  },
  {
    id: 'robustness.path-traversal',
    title: 'Path-traversal ids get a 4xx envelope and leak nothing',
    platform: { severity: 'fail', rule: 'the gateway serves only its own content' },
    strict: { severity: 'fail', rule: 'the gateway serves only its own content' },
  },
  {
    id: 'robustness.unknown-route',
    title: 'An unknown route gets a 4xx envelope',
    platform: { severity: 'fail', rule: '[GW-CG-new] unknown routes → 404 NOT_FOUND' },
    strict: { severity: 'fail', rule: '[GW-CG-new] unknown routes → 404 NOT_FOUND' },
  },
  {
    id: 'rate-limit.coherent',
    title: 'Rate-limit headers, when sent, are whole numbers with remaining ≤ limit',
    platform: { severity: 'fail', rule: '[DOC-ERRORS] X-RateLimit-Limit, -Remaining, -Reset' },
    strict: { severity: 'fail', rule: '[DOC-ERRORS] X-RateLimit-Limit, -Remaining, -Reset' },
  },
  {
    id: 'rate-limit.not-static',
    title: 'Rate-limit headers, when sent, are not static placeholders',
    platform: { severity: 'fail', rule: '[GW-CG-new] static values are worse than none' },
    strict: { severity: 'fail', rule: '[GW-CG-new] static values are worse than none' },
  },
  {
    id: 'rate-limit.retry-after',
    title: 'Every 429 carries Retry-After',
    platform: { severity: 'warn', rule: '[GW-OAS] Retry-After on 429, required: false' },
    strict: { severity: 'fail', rule: 'content-gateway.yaml: every 429 and 503 carries it' },
  },
  {
    id: 'access.expectations',
    title: 'The expectations file holds: these emails can, those cannot, see these files',
    platform: { severity: 'fail', rule: 'your expectations file' },
    strict: { severity: 'fail', rule: 'your expectations file' },
  },
];

export function checkDefinition(id: string): CheckDefinition | undefined {
  return CHECKS.find((c) => c.id === id);
}

const shown = (s: Severity) => (s === 'pass' ? 'info' : s);
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The README's table of checks, generated from the catalog (a test keeps the README in step). */
export function checkTable(): string {
  const rows = CHECKS.map((c) => {
    const strictRule = c.strict.rule === c.platform.rule ? '(same)' : cell(c.strict.rule);
    return `| \`${c.id}\` | ${shown(c.platform.severity)} | ${shown(c.strict.severity)} | ${cell(c.title)} | ${cell(c.platform.rule)} | ${strictRule} |`;
  });
  return ['| Check | platform | strict | What it checks | Platform rule | Strict rule |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The worst severity `profile` lets a check report. */
export function severityCap(check: string, profile: Profile): Severity {
  return checkDefinition(check)?.[profile].severity ?? 'fail';
}
