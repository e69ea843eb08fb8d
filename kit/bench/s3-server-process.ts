/**
 * Child process of `s3Downloads`: a real S3-compatible server (s3rver) with one bucket, in a
 * process of its own as a storage server is a host of its own, so its work does not share the
 * clients' event loop. Protocol: `serveToParent`'s; the url is the server's endpoint.
 */
import { startS3Server } from '../src/mocks/s3/start-s3-server';
import { serveToParent } from './serve-to-parent';

serveToParent(async (config: { bucket: string }) => {
  const server = await startS3Server({ bucket: config.bucket });
  return { url: server.endpoint, close: server.close, report: () => ({}) };
});
