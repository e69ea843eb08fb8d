import path from 'node:path';
import contentDisposition from 'content-disposition';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import type { Context } from 'openapi-backend';
import rangeParser from 'range-parser';
import { GatewayError } from '../../errors/gateway-error';
import type { ByteRange } from '../../blobs/blob-store';
import { ContentUnavailableError, type ContentUnavailableReason } from '../content-unavailable-error';
import type { HandlerDeps } from '../handler-context';
import { MissingIdError } from '../missing-id-error';
import { pathParam } from '../path-param';
import { ClientClosedError, streamToResponse } from '../stream-to-response';

const EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'text/plain': '.txt',
};

/** A download name from the title: its own extension if it has the right one, else the MIME type's. */
function fileName(title: string, mimeType: string): string {
  const ext = EXTENSIONS[mimeType] ?? '';
  // Control characters have no place in a header, even percent-encoded.
  const name = title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim() || 'download';
  return path.extname(name).toLowerCase() === ext ? name : `${name}${ext}`;
}

/**
 * Which part of the file to send: the whole (undefined), one range, or 'unsatisfiable'. Malformed
 * and multi-range headers get the whole file, as RFC 9110 allows; `If-Range` that no longer
 * matches also gets the whole (new) file.
 */
function requestedRange(req: Request, size: number, etag: string, lastModified: string): ByteRange | 'unsatisfiable' | undefined {
  const header = req.headers.range;
  if (!header) return undefined;
  const ifRange = req.headers['if-range'];
  if (ifRange && ifRange !== etag && ifRange !== lastModified) return undefined;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  const [range] = ranges;
  return range ? { start: range.start, end: range.end } : undefined;
}

export function downloadFile(deps: HandlerDeps) {
  return async function handleDownloadFile(c: Context, req: Request, res: Response) {
    const id = pathParam(c, 'id');
    const file = await deps.files.getFileMeta(id);
    if (!file) throw new MissingIdError('File', id);
    if (file.status !== 'active') throw new GatewayError('NOT_FOUND', `File ${JSON.stringify(id)} not found.`);
    if (!file.blob_key || !file.sha256) {
      throw new GatewayError('NOT_FOUND', `File ${JSON.stringify(id)} has no download; its content is the HTML body of /v1/files/{id}.`);
    }
    const blobKey = file.blob_key;
    // Counted and answered as CONTENT_UNAVAILABLE: a 5xx, which the platform retries on a later
    // crawl (after a sync restored the blob), where a 404 would drop the file from its index.
    const unavailable = (reason: ContentUnavailableReason, detail?: string): ContentUnavailableError => {
      deps.metrics.contentUnavailable(reason);
      return new ContentUnavailableError(file.id, blobKey, reason, String(req.id), deps.blobs.where, detail);
    };
    const stat = await deps.blobs.stat(blobKey);
    if (!stat) throw unavailable('missing', 'the blob store has no blob with this key');
    // Content-addressed: a blob of another size than the file's cannot hold the file's bytes.
    if (file.size !== null && Number(file.size) !== stat.size) throw unavailable('size_mismatch', `the blob has ${stat.size} bytes, the file ${file.size}`);

    const etag = `"${file.sha256}"`;
    const lastModified = new Date(file.modified_at).toUTCString();
    const validators = { ETag: etag, 'Last-Modified': lastModified, 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, no-cache' };
    const representation = {
      'Content-Type': file.mime_type,
      'Checksum-SHA256': file.sha256,
      'Content-Disposition': contentDisposition(fileName(file.name, file.mime_type)),
    };
    if (fresh(req.headers, { etag, 'last-modified': lastModified })) {
      res
        .set({ ...representation, ...validators })
        .status(304)
        .end();
      return;
    }

    const range = requestedRange(req, stat.size, etag, lastModified);
    if (range === 'unsatisfiable') {
      // An error like any other, in the envelope: the file's own headers (its type, checksum and
      // name) would describe a body this answer does not have.
      throw new GatewayError('RANGE_NOT_SATISFIABLE', `The range ${req.headers.range ?? ''} is outside the file, which has ${stat.size} bytes.`, {
        headers: { ...validators, 'Content-Range': `bytes */${stat.size}` },
      });
    }
    res.set({ ...representation, ...validators });
    if (range) {
      res.status(206).set({ 'Content-Range': `bytes ${range.start}-${range.end}/${stat.size}`, 'Content-Length': String(range.end - range.start + 1) });
    } else {
      res.status(200).set('Content-Length', String(stat.size));
    }
    if (req.method === 'HEAD') {
      // What the download would be, without reading the blob.
      res.end();
      return;
    }
    // Ends the response when the stream ends and destroys it if the read fails midway, so a
    // client never mistakes a truncated body for a whole one.
    try {
      await streamToResponse(deps.blobs.createReadStream(blobKey, range), res);
    } catch (error) {
      if (error instanceof ClientClosedError) throw error;
      // Failed before the first byte: the answer becomes the error, without the file's headers.
      if (!res.headersSent)
        for (const name of [...Object.keys(representation), ...Object.keys(validators), 'Content-Length', 'Content-Range']) res.removeHeader(name);
      throw unavailable('read_failed', error instanceof Error ? error.message : String(error));
    }
  };
}
