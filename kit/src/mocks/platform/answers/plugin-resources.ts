/**
 * Plugin-resource records (the Data API's `plugin-resources`): one per gateway file the assistant
 * surfaced in an answer, `cited` when the answer cites it.
 */
import crypto from 'node:crypto';
import type { SearchHit } from '../corpus-index';
import { MIME, baseMime } from '../ingest/extract-text';
import { base62 } from '../ids';

export interface PluginResource {
  id: string;
  resource_id: string;
  type: 'RESOURCE_TYPE_KNOWLEDGE' | 'RESOURCE_TYPE_FILE';
  plugin_call_id: string;
  interaction_id: string;
  user_id: string;
  conversation_id: string;
  detail: { domain: string; external_resource_id: string; name: string; snippet: string; source: string; type: string; url: string };
  cited: boolean;
  created_time: string;
  last_updated_time: string;
}

/** The platform's user id for a person: a stable numeric string (the Data API's examples are numeric). */
export function platformUserId(email: string): string {
  const digest = crypto.createHash('sha256').update(email.trim().toLowerCase()).digest();
  return (digest.readBigUInt64BE(0) % 10_000_000_000_000_000n).toString().padStart(16, '1');
}

export interface SurfacedCall {
  email: string;
  conversationId: string;
  interactionId: string;
  source: string;
  surfaced: SearchHit[];
  citedIds: ReadonlySet<string>;
  at: string;
}

export function recordsFor(call: SurfacedCall): PluginResource[] {
  const pluginCallId = base62(12);
  return call.surfaced.map((hit) => ({
    id: base62(12),
    resource_id: crypto.createHash('sha256').update(hit.file.id).digest().readBigUInt64BE(0).toString(),
    type: baseMime(hit.file.mimeType) === MIME.html ? 'RESOURCE_TYPE_KNOWLEDGE' : 'RESOURCE_TYPE_FILE',
    plugin_call_id: pluginCallId,
    interaction_id: call.interactionId,
    user_id: platformUserId(call.email),
    conversation_id: call.conversationId,
    detail: {
      domain: 'enterprise-search',
      external_resource_id: hit.file.id,
      name: hit.file.name,
      snippet: hit.snippet,
      source: call.source,
      type: hit.file.mimeType,
      url: hit.file.externalUrl,
    },
    cited: call.citedIds.has(hit.file.id),
    created_time: call.at,
    last_updated_time: call.at,
  }));
}
