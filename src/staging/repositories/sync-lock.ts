import crypto from 'node:crypto';
import os from 'node:os';
import type { Db } from '../database/create-db';

export class SyncLockedError extends Error {
  constructor(
    readonly source: string,
    readonly holder: string,
  ) {
    super(`A sync of '${source}' is already running (${holder}).`);
    this.name = 'SyncLockedError';
  }
}

/**
 * The key an access-only run of `source` locks under: its own, so it runs while a full run of the
 * source holds the source's lock (docs/scaling-out.md, kinds of run).
 */
export function accessLockKey(source: string): string {
  return `${source}#access`;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One sync per source at a time, on SQLite and Postgres alike: a row per source holding the
 * owner and a lease. The owner renews the lease while it runs; a crashed or killed owner's lease
 * runs out (or, on the same host, its process is seen to be gone) and the next run takes over.
 * Takeover is a compare-and-set on the owner, so two contenders cannot both win.
 */
export class SyncLock {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  constructor(
    private readonly db: Db,
    readonly source: string,
    private readonly leaseMs = 60_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private expiry(): string {
    return new Date(this.now().getTime() + this.leaseMs).toISOString();
  }

  /** Takes the lock or throws SyncLockedError naming the holder. Starts renewing the lease. */
  async acquire(): Promise<void> {
    await this.db('sync_locks').insert({ source: this.source, owner: this.owner, expires_at: this.expiry() }).onConflict('source').ignore();
    let row = (await this.db('sync_locks').where({ source: this.source }).first()) as { owner: string; expires_at: string } | undefined;
    if (row && row.owner !== this.owner) {
      const [host, pid] = row.owner.split(':');
      const stale = row.expires_at < this.now().toISOString() || (host === os.hostname() && !processIsAlive(Number(pid)));
      if (!stale) throw new SyncLockedError(this.source, row.owner);
      await this.db('sync_locks').where({ source: this.source, owner: row.owner }).update({ owner: this.owner, expires_at: this.expiry() });
      row = (await this.db('sync_locks').where({ source: this.source }).first()) as typeof row;
      if (row?.owner !== this.owner) throw new SyncLockedError(this.source, row?.owner ?? 'unknown');
    }
    // A renewal that fails (database briefly away, or closed under us) is retried at the next tick;
    // if the lease runs out meanwhile, the next renewal finds it taken and marks the lock lost.
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(1000, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** False once another process has taken the lock over (our lease ran out): stop writing. */
  async renew(): Promise<boolean> {
    if (this.lost) return false;
    const updated = await this.db('sync_locks').where({ source: this.source, owner: this.owner }).update({ expires_at: this.expiry() });
    if (updated === 0) this.lost = true;
    return !this.lost;
  }

  get isLost(): boolean {
    return this.lost;
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.db('sync_locks').where({ source: this.source, owner: this.owner }).delete();
  }
}
