/**
 * What one ingest of a gateway left the platform with: every searchable file with its extracted
 * text and access list, and the directory (users, groups with their direct members). Replaced
 * whole by the next ingest, never mutated.
 */
export interface AccessEntry {
  type: string;
  id: string;
  action?: string;
}

export interface IngestedFile {
  /** The gateway's file id (`detail.external_resource_id` in the Data API). */
  id: string;
  name: string;
  /** Where the platform sends a user who opens the file (citations' `url`). */
  externalUrl: string;
  /** `last_modified_datetime` as served: the key of the binary cache. */
  lastModified: string | undefined;
  mimeType: string;
  /** Extracted text (HTML bodies and binaries alike). */
  text: string;
  permissions: AccessEntry[];
  /** True when the text came from a download (not an inline HTML body). */
  binary: boolean;
}

export interface DirectoryUser {
  id: string;
  email?: string;
  fullName?: string;
  state?: string;
}

export interface DirectoryGroup {
  id: string;
  name?: string;
  /** Direct members, as served (sub-groups are `GROUP` entries). */
  members: AccessEntry[];
}

export interface CorpusSnapshot {
  files: ReadonlyMap<string, IngestedFile>;
  users: readonly DirectoryUser[];
  groups: readonly DirectoryGroup[];
  /** When the ingest that produced it finished (simulator clock, ISO). */
  ingestedAt: string;
  /** Where it came from: a gateway's base URL, or `generated`. */
  source: string;
}

export const EMPTY_SNAPSHOT: CorpusSnapshot = { files: new Map(), users: [], groups: [], ingestedAt: new Date(0).toISOString(), source: 'none' };
