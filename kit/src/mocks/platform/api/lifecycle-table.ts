/**
 * THE table of the simulator's public endpoints and their lifecycle stage (seed: Versioning).
 * The server is built from it: each row's route is registered with the middleware its stage
 * calls for, so a client can be tested against every stage:
 *
 * - stable, legacy: served; `X-Api-Lifecycle: stable|legacy`.
 * - deprecated: served (deprecated endpoints are "not expected to work", but the platform's own
 *   example keeps its key working) with `Deprecation: @<epoch>` (RFC 9745) when the date is known,
 *   `Link: <successor>; rel="successor-version"`, and the row's legacy headers
 *   (`x-service-root-uuid` on `/assistant/v1`).
 * - experimental: the version segment names a beta (`/rest/v2beta3/*` is the third beta of version
 *   2); served only for the betas the tenant pilots (else 404), with `X-Api-Change-Notice-Days: 14`.
 * - removed (a setting overrides a row's stage): 410 in the family's error format.
 * A capability served only on `/rest/v1` (modals) has rows for that base alone.
 */

export type Stage = 'stable' | 'legacy' | 'deprecated' | 'experimental' | 'removed';
export type Family = 'conversations' | 'data' | 'message' | 'auth';
export type Operation =
  | 'listMessages'
  | 'submitFeedback'
  | 'createConversation'
  | 'createResponse'
  | 'openModal'
  | 'getModal'
  | 'submitModal'
  | 'countPluginResources'
  | 'listPluginResources'
  | 'listInteractions'
  | 'sendMessage'
  | 'issueToken';

export interface LifecycleRow {
  /** Stable name of the row (settings and tests refer to it). */
  id: string;
  family: Family;
  method: 'GET' | 'POST';
  /** Express path; `:version` is an experimental version segment. */
  path: string;
  stage: Stage;
  operation: Operation;
  /** Deprecated since (ISO date). */
  since?: string;
  /** What to use instead. */
  successor?: string;
  /** Send the deprecated `x-service-root-uuid` header. */
  serviceRootUuid?: boolean;
  /** Served on this base only: the same path on the other Conversations bases is 404. */
  onlyOn?: string;
  note: string;
}

/** Notice the platform gives before changing an experimental endpoint. */
export const EXPERIMENTAL_NOTICE_DAYS = 14;
/** Experimental version segments: `v<major>alpha<n>` or `v<major>beta<n>`. */
export const EXPERIMENTAL_VERSION = /^v(\d+)(alpha|beta)(\d+)$/;
/** The Data API's base below a regional host (or below `/regions/<region>` on one server). */
export const DATA_BASE = '/export/v1/records';

const conversations = (base: string, stage: Stage, extra: Partial<LifecycleRow> = {}): LifecycleRow[] => {
  const tag = base.replace(/^\//, '').replace(/:version/, 'vNbetaM');
  const row = (id: string, method: 'GET' | 'POST', path: string, operation: Operation, note: string): LifecycleRow => ({
    id: `${id}@${tag}`,
    family: 'conversations',
    method,
    path: `${base}${path}`,
    stage,
    operation,
    note,
    ...extra,
  });
  return [
    row(
      'conversations.list-messages',
      'GET',
      '/conversations/:conversation_id/messages',
      'listMessages',
      'Messages of a conversation, newest first; cursor, limit 1–100 (default 20).',
    ),
    row(
      'conversations.submit-feedback',
      'POST',
      '/conversations/:conversation_id/responses/:response_id/messages/:message_id/feedback',
      'submitFeedback',
      'Feedback on a final assistant message: the callback_id decides helpful or unhelpful.',
    ),
    row(
      'conversations.create',
      'POST',
      '/conversations',
      'createConversation',
      "Starts a conversation for the token's user (simulator extension of the notes' create-conversation).",
    ),
    row(
      'conversations.create-response',
      'POST',
      '/conversations/:conversation_id/responses',
      'createResponse',
      'Asks the assistant: input is exactly one of {text} or {callback_id}.',
    ),
  ];
};

/** The base that serves the Conversations API's new capabilities. */
export const REST_V1_ONLY = '/rest/v1';
/** The other bases of the Conversations API, where a row served on one base only is refused. */
export const OTHER_CONVERSATION_BASES = ['/assistant/v1', '/rest/:version'] as const;

/**
 * Modals: new capabilities are served only on `/rest/v1` (seed: Versioning), so these rows exist
 * for that base alone (`onlyOn`); the same paths on `/assistant/v1` or a beta answer 404.
 */
const modals: LifecycleRow[] = [
  {
    id: 'conversations.open-modal@rest/v1',
    family: 'conversations',
    method: 'POST',
    path: `${REST_V1_ONLY}/conversations/:conversation_id/responses/:response_id/messages/:message_id/modals`,
    stage: 'stable',
    onlyOn: REST_V1_ONLY,
    operation: 'openModal',
    note: 'Opens the feedback modal of a final assistant message (modals: only on /rest/v1).',
  },
  {
    id: 'conversations.get-modal@rest/v1',
    family: 'conversations',
    method: 'GET',
    path: `${REST_V1_ONLY}/conversations/:conversation_id/modals/:modal_id`,
    stage: 'stable',
    onlyOn: REST_V1_ONLY,
    operation: 'getModal',
    note: 'A modal and its status, OPEN or SUBMITTED (modals: only on /rest/v1).',
  },
  {
    id: 'conversations.submit-modal@rest/v1',
    family: 'conversations',
    method: 'POST',
    path: `${REST_V1_ONLY}/conversations/:conversation_id/modals/:modal_id/submit`,
    stage: 'stable',
    onlyOn: REST_V1_ONLY,
    operation: 'submitModal',
    note: "Submits a modal once: {values: {rating, comment?}}, recorded as the message's feedback (modals: only on /rest/v1).",
  },
];

export const LIFECYCLE_TABLE: readonly LifecycleRow[] = [
  {
    id: 'auth.token',
    family: 'auth',
    method: 'POST',
    path: '/oauth/v1/token',
    stage: 'stable',
    operation: 'issueToken',
    note: 'OAuth 2.0 client credentials (JSON or form) → a JWT valid 3600 s, for the Conversations and Data APIs.',
  },
  ...conversations('/rest/v1', 'stable'),
  ...modals,
  ...conversations('/assistant/v1', 'deprecated', { successor: '/rest/v1', serviceRootUuid: true }),
  ...conversations('/rest/:version', 'experimental'),
  {
    id: 'data.plugin-resources.count',
    family: 'data',
    method: 'GET',
    path: `${DATA_BASE}/plugin-resources/$count`,
    stage: 'stable',
    operation: 'countPluginResources',
    note: "The number of matching plugin resources as a bare number; $filter=<field> eq '<value>'.",
  },
  {
    id: 'data.plugin-resources.list',
    family: 'data',
    method: 'GET',
    path: `${DATA_BASE}/plugin-resources`,
    stage: 'stable',
    operation: 'listPluginResources',
    note: 'OData $filter, $select, $orderby, $top, $skip; server paging with @odata.nextLink; $count=true ignored.',
  },
  {
    id: 'data.interactions.list',
    family: 'data',
    method: 'GET',
    path: `${DATA_BASE}/interactions`,
    stage: 'stable',
    operation: 'listInteractions',
    note: "Questions and feedback ratings (label helpful/unhelpful, parent_interaction_id the rated answer's question); the same OData options and paging.",
  },
  {
    id: 'message.send',
    family: 'message',
    method: 'POST',
    path: '/rest/v1/messages/send',
    stage: 'legacy',
    operation: 'sendMessage',
    note: 'Sends a message to recipients; keep using, no enhancements.',
  },
  {
    id: 'message.send@v1beta1',
    family: 'message',
    method: 'POST',
    path: '/rest/v1beta1/messages/send',
    stage: 'deprecated',
    since: '2023-01-31',
    successor: '/rest/v1/messages/send',
    operation: 'sendMessage',
    note: 'Deprecated since 2023-01-31; the current message API key still works.',
  },
];

/** A row's stage after the settings' overrides. */
export function stageOf(row: LifecycleRow, overrides: Readonly<Record<string, Stage>>): Stage {
  return overrides[row.id] ?? row.stage;
}
