import { GatewayError } from '../../errors/gateway-error';
import type { ConsoleAction, ConsoleContext, ConsolePage } from '../console-page';
import { failingItems, type FailingItem } from '../failing-items';

function sourceField(fields: Readonly<Record<string, string>>): string {
  const source = fields.source?.trim();
  if (!source || source.length > 200) throw new GatewayError('INPUT_VALIDATION_FAILED', 'Name the source (its adapter name) in the field `source`.');
  return source;
}

async function request(ctx: ConsoleContext, source: string, mode: 'full' | 'incremental'): Promise<{ message: string }> {
  if (!ctx.requestSync) return { message: 'This gateway cannot start syncs from the console: run `content-gateway sync` or a `sync-worker`.' };
  return { message: await ctx.requestSync(source, mode) };
}

/** Failed items are retried by every run of their source: "retry now" asks for one now (incremental when the source can, as scheduled runs are). */
const retry: ConsoleAction = { name: 'retry', run: (ctx, fields) => request(ctx, sourceField(fields), 'incremental') };
const fullSync: ConsoleAction = { name: 'full-sync', run: (ctx, fields) => request(ctx, sourceField(fields), 'full') };

/** Every item still failing, since when and why, with a retry and a full sync of its source. */
export const failingItemsPage: ConsolePage<{ items: FailingItem[]; sources: string[] }> = {
  path: 'failing',
  title: 'Failing items',
  template: 'failing',
  actions: [retry, fullSync],
  async data(ctx, query) {
    const items = await failingItems(ctx.db, query.source || undefined);
    return { items, sources: [...new Set(items.map((i) => i.source))] };
  },
};
