import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';

/**
 * Aborts the multipart uploads under `prefix` begun before `before` and never finished (a process
 * killed mid-upload leaves them, and S3 keeps, and bills, their parts); returns how many. A server
 * that does not list multipart uploads (`NotImplemented`) has none to report.
 */
export async function removeStaleUploads(client: S3Client, bucket: string, prefix: string, before: Date): Promise<number> {
  let removed = 0;
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    let page;
    try {
      page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix,
          ...(keyMarker ? { KeyMarker: keyMarker } : {}),
          ...(uploadIdMarker ? { UploadIdMarker: uploadIdMarker } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof S3ServiceException && error.name === 'NotImplemented') return removed;
      throw error;
    }
    for (const upload of page.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= before) continue;
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
      removed += 1;
    }
    if (!page.IsTruncated) return removed;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}
