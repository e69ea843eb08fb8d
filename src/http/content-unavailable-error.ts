import { GatewayError } from '../errors/gateway-error';

/** Why a download's content could not be served (a label of the metric that counts them). */
export const CONTENT_UNAVAILABLE_REASONS = ['missing', 'size_mismatch', 'read_failed'] as const;
export type ContentUnavailableReason = (typeof CONTENT_UNAVAILABLE_REASONS)[number];

/**
 * What the operator runs. A missing blob is most often a blob store other than the one staging was
 * synced with (another BLOB_DIR or BLOB_STORE), so that comes first; then the commands that store
 * the content again. Settings and commands only: no server path reaches a client.
 */
const REMEDY =
  'run `content-gateway verify-blobs` (it names the store it checked); if the store is the wrong one, point BLOB_DIR / BLOB_STORE at the one staging was synced with, ' +
  'otherwise `verify-blobs --repair` and a sync of the source fetch the content again (`seed-demo` for the demo corpus)';

const WHAT_IS_WRONG: Record<ContentUnavailableReason, string> = {
  missing: "the gateway's blob store does not hold this file's content",
  size_mismatch: "the gateway's blob store holds a damaged copy of this file's content (not the file's size)",
  read_failed: "the gateway's blob store failed to read this file's content",
};

/**
 * A binary file whose row is staged but whose bytes the blob store cannot give: the blob is
 * missing, has not the file's size, or fails to read. Its fields go to the log line (pino logs an
 * error's own properties), so an operator sees which file, blob and store (`store`: the folder or
 * database), why, and what to run (`remedy`); the client gets the same remedy without the store.
 */
export class ContentUnavailableError extends GatewayError {
  readonly remedy = REMEDY;

  constructor(
    readonly fileId: string,
    readonly blobKey: string,
    readonly reason: ContentUnavailableReason,
    requestId: string,
    /** The blob store read (its `where`), for the log only. */
    readonly store: string,
    /** What the blob store said, for the log. */
    readonly detail?: string,
  ) {
    super(
      'CONTENT_UNAVAILABLE',
      `The content of file ${JSON.stringify(fileId)} is unavailable: ${WHAT_IS_WRONG[reason]}. The gateway's operator should ${REMEDY} (request id ${requestId}).`,
      { expose: true },
    );
    this.name = 'ContentUnavailableError';
  }
}
