import type { CountStats, CountStrategy } from './count-file-usage';

/** One gateway file as the assistant used it. */
export interface FileUsage {
  id: string;
  name: string;
  /** At the gateway now: listed active, listed as a tombstone, or no longer listed at all. */
  status: 'active' | 'deleted' | 'missing';
  /** Plugin resources naming it: how often an answer surfaced it. */
  surfaced: number;
  /** How often an answer cited it. */
  cited: number;
  /** Ratings of answers that cited it. */
  helpful: number;
  unhelpful: number;
}

export interface UsageReport {
  generatedAt: string;
  gatewayUrl: string;
  dataApiUrl: string;
  /** The condition every platform request carried (e.g. the connector's `detail/source`), if any. */
  scope: string | null;
  /** Every file the gateway lists, plus cited files it no longer lists; most cited first. */
  files: FileUsage[];
  /** Active files no answer surfaced. */
  neverSurfaced: string[];
  /** Cited files the gateway has since deleted (tombstone) or no longer lists. */
  staleCitations: FileUsage[];
  totals: {
    files: number;
    activeFiles: number;
    surfacedFiles: number;
    citedFiles: number;
    surfaced: number;
    cited: number;
    helpful: number;
    unhelpful: number;
    /** Plugin resources in scope; more than `surfaced` when records name files the gateway does not list. */
    platformRecords: number;
    ratings: number;
  };
  /** Whether cited files missing from the gateway's listing were looked for (only with a scope). */
  missingChecked: boolean;
  requests: { platform: number; gateway: number };
  counting: CountStats & { strategy: CountStrategy };
  elapsedMs: number;
}
