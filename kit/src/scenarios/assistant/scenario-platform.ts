import type { UsageReport } from 'content-gateway/platform';

/**
 * What the closed-loop scenario needs from the platform, over HTTP only: run an ingest, ask the
 * assistant as a person, submit feedback on an answer, read plugin-resource records and count
 * them through the Data API.
 */
export interface SeenAnswer {
  /** Who asked: the conversation's person. */
  email: string;
  conversationId: string;
  responseId: string;
  messageId: string;
  /** The `url` of each citation of the final reply, in order. */
  citationUrls: string[];
  /** Callback ids of the final reply's feedback, when it takes feedback. */
  feedback: { helpful: string; unhelpful: string } | null;
}

export interface PluginResourceRow {
  conversation_id: string;
  cited: boolean;
  detail: { external_resource_id: string };
}

export interface IngestSummary {
  status: string;
  files: number;
  error?: string;
}

/** What a person other than the asker got when reading an answer's conversation and rating it. */
export type ForeignRead = { refused: true } | { refused: false; citationUrls: string[]; rated: boolean };

export interface ScenarioPlatform {
  ingest(): Promise<IngestSummary>;
  ask(email: string, text: string): Promise<SeenAnswer>;
  /** `email` (not the asker) lists the answer's conversation and rates the answer, as its asker could. */
  readAs(email: string, answer: SeenAnswer): Promise<ForeignRead>;
  feedback(answer: SeenAnswer, rating: 'helpful' | 'unhelpful'): Promise<void>;
  /** Every plugin-resource record (matching an OData `$filter`, when given). */
  pluginResources(filter?: string): Promise<PluginResourceRow[]>;
  /** The Data API's count of plugin resources matching `filter` (all without one). */
  count(filter?: string): Promise<number>;
  /** The operator's `usage` computation for a gateway against this platform. */
  usage(gateway: { url: string; key: string }): Promise<UsageReport>;
}
