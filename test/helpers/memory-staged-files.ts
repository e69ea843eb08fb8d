import type { StagedFiles } from '../../src/adapters/adapter';

/** The engine's `StagedFiles` in memory: what a test says is staged (native id → version), and what a run listed. */
export class MemoryStagedFiles implements StagedFiles {
  readonly listed = new Set<string>();

  constructor(private readonly staged: Readonly<Record<string, string | null>> = {}) {}

  async list(nativeIds: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const id of nativeIds) {
      this.listed.add(id);
      if (Object.hasOwn(this.staged, id)) out.set(id, this.staged[id] ?? null);
    }
    return out;
  }

  async count(): Promise<number> {
    return Object.keys(this.staged).length;
  }

  async unlistedCount(): Promise<number> {
    return this.unlistedIds().length;
  }

  async unlisted(after: string | undefined, limit: number): Promise<string[]> {
    return this.unlistedIds()
      .filter((id) => after === undefined || id > after)
      .slice(0, limit);
  }

  private unlistedIds(): string[] {
    return Object.keys(this.staged)
      .filter((id) => !this.listed.has(id))
      .sort();
  }
}
