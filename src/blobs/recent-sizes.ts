/**
 * Sizes of blobs seen present lately, for at most `ttlMs` each and `max` of them (the oldest
 * forgotten first). Content-addressed blobs never change, so a size seen stays right; only the
 * blob's presence may change (a garbage collection or a repair in another process), which a
 * download then finds out reading it.
 */
export class RecentSizes {
  private readonly sizes = new Map<string, { size: number; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): number | undefined {
    const seen = this.sizes.get(key);
    if (!seen) return undefined;
    if (this.now() - seen.at < this.ttlMs) return seen.size;
    this.sizes.delete(key);
    return undefined;
  }

  set(key: string, size: number): void {
    this.sizes.delete(key);
    this.sizes.set(key, { size, at: this.now() });
    if (this.sizes.size > this.max) this.sizes.delete(this.sizes.keys().next().value as string);
  }

  delete(key: string): void {
    this.sizes.delete(key);
  }
}
