import { GatewayError } from '../../errors/gateway-error';
import type { BlobHealth, BlobHealthReport } from '../blob-health';
import type { ConsoleAction, ConsoleContext, ConsolePage } from '../console-page';

function blobHealthOf(ctx: ConsoleContext): BlobHealth {
  if (!ctx.blobHealth) throw new GatewayError('NOT_FOUND', 'This console was started without the blob store: run `content-gateway verify-blobs`.');
  return ctx.blobHealth;
}

/** `verify-blobs` without repairing, now (one at a time: a second request joins the running one). */
const verify: ConsoleAction = {
  name: 'verify',
  async run(ctx) {
    const v = await blobHealthOf(ctx).verify();
    const s = v.summary;
    return { message: `Checked ${s.files} binary files (${s.blobs} blobs): ${s.missing} missing, ${s.corrupt} corrupt.` };
  },
};

/** What `verify-blobs` last found and what `gc-blobs` would delete (page 6). */
export const blobsPage: ConsolePage<BlobHealthReport> = {
  path: 'blobs',
  title: 'Blobs',
  template: 'blobs',
  actions: [verify],
  data: (ctx) => blobHealthOf(ctx).report(),
};
