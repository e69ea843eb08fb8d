import type { ScheduledChange } from './api/lifecycle-schedule';
/** What the simulator's routes share: clock, credentials, the ingested corpus, conversations, records, settings. */
import type { AccessResolver } from './access-resolver';
import type { Assistant } from './answers/assistant';
import type { ConversationStore } from './answers/conversation-store';
import type { PluginResource } from './answers/plugin-resources';
import type { Stage } from './api/lifecycle-table';
import type { PlatformAuth } from './api/platform-auth';
import type { SignedTokens } from './api/signed-token';
import type { SimulatorClock } from './clock';
import type { CorpusIndex } from './corpus-index';
import type { FaultInjector, Hostility, HostilityPatch, RateLimiter } from './hostility';
import type { CorpusSnapshot } from './ingest/corpus-snapshot';
import type { IngestReport } from './ingest/ingest-gateway';

export interface LoadedCorpus {
  snapshot: CorpusSnapshot;
  index: CorpusIndex;
  access: AccessResolver;
}

export interface SentMessage {
  path: string;
  message: string;
  recipients: string[];
  receivedAt: string;
}

export interface SimulatorSettings {
  /** Overrides of the lifecycle table's stages by row id (e.g. `{"message.send@v1beta1": "removed"}`). */
  lifecycle: Record<string, Stage>;
  /** Experimental version segments the tenant pilots (`v2beta1`); others answer 404. */
  pilotVersions: string[];
  /** Data API records per page before an `@odata.nextLink`. */
  dataPageSize: number;
  /**
   * The Data API region the tenant lives in (`DATA_REGIONS` id): its records are served by that
   * region's server only; every other region knows no tenant with these credentials (403).
   */
  dataRegion: string;
  /** Lifecycle changes announced with a date (`api/lifecycle-schedule.ts`). */
  schedule: ScheduledChange[];
}

export interface PlatformContext {
  clock: SimulatorClock;
  auth: PlatformAuth;
  corpus(): LoadedCorpus;
  store: ConversationStore;
  pluginResources: PluginResource[];
  assistant: Assistant;
  tokens: SignedTokens;
  hostility(): Hostility;
  setHostility(patch: HostilityPatch): Hostility;
  limiter: RateLimiter;
  faults: FaultInjector;
  settings: SimulatorSettings;
  sentMessages: SentMessage[];
  ingests: IngestReport[];
  ingest(): Promise<IngestReport>;
  /** The value of the deprecated `x-service-root-uuid` header. */
  serviceRootUuid: string;
}
