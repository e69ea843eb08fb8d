/** What one assistant scenario run found: the result, its revocation report and its checks. */
import type { ChangeRound } from '../change-round';
import type { FileUsage } from './answer-judge';
import type { RoundSummary } from './ask-round';
import type { DataApiAgreement } from './data-api-agreement';
import type { IngestSummary } from './scenario-platform';
import type { UsageAgreement } from './usage-agreement';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** The crawl harness's change round, plus a guest deactivated and a member added to a private project. */
export type ScenarioChanges = ChangeRound & { deactivatedGuest: string; addedMember: { project: string; user: string } };

export interface CycleReport {
  cycle: number;
  sync: { mode: string; status: string; failed: number };
  ingest: IngestSummary;
  /** Revoked (user, task) probes whose task the answer still cited. */
  stillCited: number;
  /** Granted (user, task) probes whose task the answer did not cite yet. */
  grantsMissed: number;
}

export interface RevocationReport {
  revokedPairs: number;
  probes: number;
  /** (user, task) pairs the change round granted, and how many of them are asked about too (each must be cited). */
  grantedPairs: number;
  grantProbes: number;
  /** Probes by the change that revoked them (a pair can count under two). */
  probesByChange: { deletedTasks: number; movedTasks: number; removedMember: number; deactivatedGuest: number };
  cycles: CycleReport[];
  /** Sync + ingest cycles until no revoked access appeared (null: not within `maxCycles`). */
  cyclesToStop: number | null;
}

export interface AssistantScenarioResult {
  ok: boolean;
  staging: string;
  organization: { tasks: number; members: number; codeNames: number };
  rounds: RoundSummary[];
  changes: ScenarioChanges;
  revocation: RevocationReport;
  usage: FileUsage[];
  dataApi: DataApiAgreement;
  /** The operator's `usage` report for the gateway against the simulator, compared with `usage`. */
  usageAgreement: UsageAgreement;
  checks: Check[];
  reportPath: string;
}
