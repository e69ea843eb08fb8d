import { GatewayError } from '../errors/gateway-error';

/** Why a download's content could not be served (a label of the metric that counts them). */
export const CONTENT_UNAVAILABLE_REASONS = ['missing', 'size_mismatch', 'read_failed'] as const;
export type ContentUnavailableReason = (typeof CONTENT_UNAVAILABLE_REASONS)[number];

/**
 * A binary file whose row is staged but whose bytes the blob store cannot give: the blob is
 * missing, has not the file's size, or fails to read. Its fields go to the log line (pino logs an
 * error's own properties), so an operator sees which file and blob, and why.
 */
export class ContentUnavailableError extends GatewayError {
  constructor(
    readonly fileId: string,
    readonly blobKey: string,
    readonly reason: ContentUnavailableReason,
    requestId: string,
    /** What the blob store said, for the log. */
    readonly detail?: string,
  ) {
    super(
      'CONTENT_UNAVAILABLE',
      `The content of file ${JSON.stringify(fileId)} is unavailable: the gateway's stored copy is missing or damaged. Retry after the gateway's next sync (request id ${requestId}).`,
      { expose: true },
    );
    this.name = 'ContentUnavailableError';
  }
}
