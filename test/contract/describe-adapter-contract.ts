import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import {
  ADAPTER_NAME,
  SUPPORTED_MIME_TYPES,
  isIncremental,
  reconcilesAccess,
  type AccessReconcilingAdapter,
  type Adapter,
  type AdapterContext,
  type IncrementalAdapter,
  type SyncEvent,
} from '../../src/adapters/adapter';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { runSync, type SyncOptions, type SyncSummary } from '../../src/sync/run-sync';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { contentBytes, contentHtml } from '../helpers/content-bytes';

/**
 * The ONE contract every adapter passes (DESIGN §6.8): the filesystem adapter, the scripted test
 * source, every adapter `new-adapter` scaffolds, and whatever comes next. It drives the adapter
 * through the real sync engine on real migrations (SQLite always, Postgres when
 * TEST_DATABASE_URL is set) and checks what the platform would see.
 *
 * A fixture is a fresh source per test: `makeFixture` is called once per test, so `mutate` may
 * change the source freely.
 */
export interface AdapterFixture {
  adapter: Adapter;
  /** Changes the source behind `adapter` (a file deleted, a file rewritten). */
  mutate?: {
    /** Removes `n` files from the source; returns their native ids. */
    deleteSomeFiles(n: number): Promise<string[]>;
    /** Changes one file's content (keeping its access); returns its native id. */
    changeOneFile(): Promise<string>;
  };
  cleanup(): Promise<void>;
}

export interface AdapterContractOptions {
  /**
   * Whether the fixture gives `mutate`. Default true: a fixture without it then fails the delete
   * and change checks; pass false to skip them visibly instead.
   */
  mutable?: boolean;
  /** How many events the adapter may still yield once its signal has aborted. Default 3. */
  abortWithinEvents?: number;
}

type Row = Record<string, unknown>;

interface Snapshot {
  files: Row[];
  permissions: Row[];
  users: Row[];
  groups: Row[];
  members: Row[];
}

const logger = pino({ level: 'silent' });
const START = Date.parse('2026-05-01T00:00:00Z');
const HOUR = 3600_000;
/** How long an adapter may take to settle after an abort. */
const ABORT_SETTLE_MS = 2_000;

/** Records what an adapter yields through the engine, and each checkpoint as serialised when it was yielded. */
interface Recording {
  events: SyncEvent[];
  checkpoints: Array<{ checkpoint: unknown; json: string | Error }>;
}

function recorded(adapter: Adapter, recording: Recording): Adapter {
  async function* tap(events: AsyncIterable<SyncEvent>): AsyncGenerator<SyncEvent> {
    for await (const event of events) {
      recording.events.push(event);
      if (event.type === 'checkpoint') {
        let json: string | Error;
        try {
          json = JSON.stringify(event.checkpoint);
        } catch (error) {
          json = error as Error;
        }
        recording.checkpoints.push({ checkpoint: event.checkpoint, json });
      }
      yield event;
    }
  }
  const wrapped = { name: adapter.name, full: (ctx: AdapterContext, resume?: unknown) => tap(adapter.full(ctx, resume)) };
  if (!isIncremental(adapter)) return wrapped;
  const incremental: IncrementalAdapter = { ...wrapped, checkpointSchema: adapter.checkpointSchema, changes: (ctx, since) => tap(adapter.changes(ctx, since)) };
  if (!reconcilesAccess(adapter)) return incremental;
  const reconciling: AccessReconcilingAdapter = {
    ...incremental,
    liveFiles: (ctx) => adapter.liveFiles(ctx),
    settle: (ctx, request) => adapter.settle(ctx, request),
  };
  return reconciling;
}

async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
  const out: SyncEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function nativeIds(events: readonly SyncEvent[], kind: 'file' | 'user' | 'group'): string[] {
  return events.flatMap((e) =>
    e.type === 'file' && kind === 'file'
      ? [e.file.nativeId]
      : e.type === 'user' && kind === 'user'
        ? [e.user.nativeId]
        : e.type === 'group' && kind === 'group'
          ? [e.group.nativeId]
          : [],
  );
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(values.filter((v) => (seen.has(v) ? true : (seen.add(v), false))))];
}

function isAbsoluteUrl(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

class SettleTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SettleTimeout(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Registers the contract tests for one adapter. Call at the top level of a `*.contract.test.ts` file. */
export function describeAdapterContract(name: string, makeFixture: () => Promise<AdapterFixture>, options: AdapterContractOptions = {}): void {
  const mutable = options.mutable ?? true;
  const abortWithin = options.abortWithinEvents ?? 3;
  const itIfMutable = mutable ? it : it.skip;

  describe(`adapter contract: ${name}`, () => {
    describe('what a full run yields (no database)', () => {
      let fixture: AdapterFixture;
      let events: SyncEvent[];
      const ctx = (signal = new AbortController().signal): AdapterContext => ({ logger, signal, now: () => new Date(START) });

      beforeAll(async () => {
        fixture = await makeFixture();
        events = await collect(fixture.adapter.full(ctx()));
      });
      afterAll(async () => {
        await fixture?.cleanup();
      });

      it('is named like an id prefix (ADAPTER_NAME)', () => {
        expect(fixture.adapter.name).toMatch(ADAPTER_NAME);
      });

      it('yields files, and every file, user and group native id at most once per run; a second run yields the same ids', async () => {
        const files = nativeIds(events, 'file');
        expect(files.length).toBeGreaterThan(0);
        for (const kind of ['file', 'user', 'group'] as const) {
          const ids = nativeIds(events, kind);
          expect({ kind, duplicates: duplicates(ids) }).toEqual({ kind, duplicates: [] });
          expect({ kind, empty: ids.filter((id) => id.length === 0) }).toEqual({ kind, empty: [] });
        }
        const again = await collect(fixture.adapter.full(ctx()));
        for (const kind of ['file', 'user', 'group'] as const) {
          expect({ kind, ids: nativeIds(again, kind).sort() }).toEqual({ kind, ids: nativeIds(events, kind).sort() });
        }
      });

      it('yields well-formed records: named files with absolute URLs, supported MIME types, non-empty HTML (at hand or loaded) or bytes that open; users with emails', async () => {
        const problems: string[] = [];
        for (const event of events) {
          if (event.type === 'user') {
            if (!/^[^@\s]+@[^@\s]+$/.test(event.user.email)) problems.push(`user ${event.user.nativeId}: email ${JSON.stringify(event.user.email)}`);
            continue;
          }
          if (event.type !== 'file') continue;
          const { file } = event;
          const at = `file ${file.nativeId}`;
          if (file.name.trim() === '') problems.push(`${at}: empty name`);
          if (!isAbsoluteUrl(file.externalUrl)) problems.push(`${at}: external URL ${JSON.stringify(file.externalUrl)} is not absolute`);
          if (!SUPPORTED_MIME_TYPES.includes(file.mimeType)) problems.push(`${at}: unsupported MIME type ${JSON.stringify(file.mimeType)}`);
          if (file.content.kind === 'html') {
            let html: string;
            try {
              html = await withTimeout(contentHtml(file), 10_000, `${at}: load()`);
            } catch (error) {
              problems.push(`${at}: HTML did not load: ${(error as Error).message}`);
              continue;
            }
            if (html.trim() === '') problems.push(`${at}: empty HTML`);
          } else {
            let size: number;
            try {
              size = (await withTimeout(contentBytes(file), 10_000, `${at}: open()`)).length;
            } catch (error) {
              problems.push(`${at}: content did not open: ${(error as Error).message}`);
              continue;
            }
            if (size === 0) problems.push(`${at}: content opened with no bytes`);
          }
        }
        expect(problems).toEqual([]);
      });

      it('yields checkpoints that are new objects, survive a JSON round trip, and (incremental adapters) pass checkpointSchema after it', async () => {
        const recording: Recording = { events: [], checkpoints: [] };
        await collect(recorded(fixture.adapter, recording).full(ctx()));
        const { adapter } = fixture;
        if (isIncremental(adapter)) {
          // The engine stores the last checkpoint of a full run as the incremental starting point.
          expect(recording.checkpoints.length).toBeGreaterThan(0);
          expect(recording.events[recording.events.length - 1]?.type).toBe('checkpoint');
        }
        for (const { checkpoint, json } of recording.checkpoints) {
          if (json instanceof Error) throw new Error(`a checkpoint is not JSON-serialisable: ${json.message}`);
          expect(json).toBeDefined();
          // Unchanged since it was yielded: checkpoints are replaced, never mutated.
          expect(JSON.stringify(checkpoint)).toBe(json);
          const roundTripped = JSON.parse(json) as unknown;
          expect(roundTripped).toEqual(checkpoint);
          if (isIncremental(adapter)) {
            const parsed = adapter.checkpointSchema.safeParse(roundTripped);
            expect(parsed.success ? 'valid' : parsed.error.message).toBe('valid');
          }
        }
      });

      it(`stops within ${abortWithin} events once its signal aborts`, async () => {
        expect(events.length).toBeGreaterThan(abortWithin + 1); // else the fixture is too small to tell
        const controller = new AbortController();
        const iterator = fixture.adapter.full(ctx(controller.signal))[Symbol.asyncIterator]();
        const first = await iterator.next();
        expect(first.done).toBeFalsy();
        controller.abort();
        let after = 0;
        let ended = false;
        try {
          while (after <= abortWithin) {
            const next = await withTimeout(iterator.next(), ABORT_SETTLE_MS, 'the adapter, once aborted,');
            if (next.done) {
              ended = true;
              break;
            }
            after++;
          }
          // Reaching here without `done` means it kept yielding.
        } catch (error) {
          if (error instanceof SettleTimeout) throw error;
          ended = true; // ending with an error (an AbortError) is as good as returning
        } finally {
          if (!ended) await iterator.return?.(undefined);
        }
        expect(ended ? `ended after ${after} more events` : `still yielding after ${after} more events`).toMatch(/^ended/);
        expect(after).toBeLessThanOrEqual(abortWithin);
      });
    });

    describe.each(databaseKinds)('through the sync engine on %s', (kind) => {
      let fixture: AdapterFixture;
      let t: TestDatabase;
      let blobDir: string;
      let clock: number;
      let recording: Recording;

      const source = () => fixture.adapter.name;
      /** One run, an hour after the previous one, that must succeed with no failed item. */
      async function sync(mode: SyncOptions['mode']): Promise<SyncSummary> {
        clock += HOUR;
        const summary = await runSync(
          recorded(fixture.adapter, recording),
          { db: t.db, blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) },
          { mode },
        );
        expect({ status: summary.status, error: summary.error, failures: summary.failures }).toEqual({ status: 'succeeded', error: undefined, failures: [] });
        return summary;
      }
      async function snapshot(): Promise<Snapshot> {
        const withoutSeen = (rows: Row[]) => rows.map(({ seen_run: _seen, ...rest }) => rest);
        const sourceFiles = t.db('files').where({ source: source() }).select('id');
        const sourceGroups = t.db('groups').where({ source: source() }).select('id');
        return {
          files: withoutSeen(await t.db('files').where({ source: source() }).orderBy('id')),
          permissions: await t.db('file_permissions').whereIn('file_id', sourceFiles).orderBy(['file_id', 'principal_type', 'principal_id']),
          users: withoutSeen(await t.db('users').where({ source: source() }).orderBy('id')),
          groups: withoutSeen(await t.db('groups').where({ source: source() }).orderBy('id')),
          members: await t
            .db('group_members')
            .whereIn('group_id', sourceGroups)
            .orderBy(['group_id', 'member_type', 'member_id'])
            .select('group_id', 'member_type', 'member_id'),
        };
      }
      const nothingWritten = { added: 0, changed: 0, deleted: 0, failed: 0 };
      /** The incremental run when the adapter has one (after a full run it must be taken), else full. */
      const nextMode = () => (isIncremental(fixture.adapter) ? 'incremental' : 'full');

      beforeEach(async () => {
        fixture = await makeFixture();
        t = await createTestDatabase(kind);
        blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-contract-'));
        clock = START;
        recording = { events: [], checkpoints: [] };
      });
      afterEach(async () => {
        await fixture?.cleanup();
        await t?.destroy();
        fs.rmSync(blobDir, { recursive: true, force: true });
      });

      it('stages everything as `<adapter name>:<native id>`, and two full runs stage the same ids', async () => {
        await sync('full');
        const first = await snapshot();
        expect(first.files.length).toBeGreaterThan(0);
        for (const row of [...first.files, ...first.users, ...first.groups]) {
          expect(row.id).toBe(`${source()}:${String(row.native_id)}`);
        }
        const ids = (s: Snapshot) => ({
          files: s.files.map((r) => [r.id, r.status]),
          users: s.users.map((r) => [r.id, r.state]),
          groups: s.groups.map((r) => r.id),
        });
        await sync('full');
        expect(ids(await snapshot())).toEqual(ids(first));
        expect(first.files.every((r) => r.status === 'active')).toBe(true);
      });

      it('writes nothing on a second full run over an unchanged source (modified_at included)', async () => {
        await sync('full');
        const before = await snapshot();
        const summary = await sync('full');
        expect(summary.counts).toMatchObject(nothingWritten);
        expect(await snapshot()).toEqual(before);
      });

      it('grants access and membership only to users and groups it also yields, or to the wildcard GROUP *; never USER *', async () => {
        await sync('full');
        const s = await snapshot();
        const users = new Set(s.users.map((r) => r.id));
        const groups = new Set(s.groups.map((r) => r.id));
        const dangling = (type: unknown, id: unknown) => (type === 'USER' ? !users.has(id) : type === 'GROUP' ? id !== '*' && !groups.has(id) : true);
        expect(s.permissions.filter((p) => dangling(p.principal_type, p.principal_id))).toEqual([]);
        expect(s.members.filter((m) => m.member_id === '*' || dangling(m.member_type, m.member_id))).toEqual([]);
        expect(s.members.filter((m) => m.group_id === m.member_id)).toEqual([]);
      });

      it('stores a checkpoint its schema accepts and then runs incrementally (full-only: stays full), changing nothing when the source did not', async () => {
        await sync('full');
        const before = await snapshot();
        if (isIncremental(fixture.adapter)) {
          const stored = (await t.db('sync_checkpoints').where({ source: source() }).first()) as { checkpoint: string } | undefined;
          expect(stored).toBeDefined();
          const parsed = fixture.adapter.checkpointSchema.safeParse(JSON.parse(stored?.checkpoint ?? 'null'));
          expect(parsed.success ? 'valid' : parsed.error.message).toBe('valid');
        }
        const summary = await sync('auto');
        expect(summary.mode).toBe(nextMode());
        expect(summary.counts).toMatchObject(nothingWritten);
        // An adapter that reconciles access lists what its full run staged, with the same access.
        if (reconcilesAccess(fixture.adapter)) expect(summary.reconciliation).toMatchObject({ accessRewritten: 0, refreshed: 0, deleted: 0, unannounced: 0 });
        expect(await snapshot()).toEqual(before);
        for (const { json } of recording.checkpoints) expect(json).not.toBeInstanceOf(Error);
      });

      itIfMutable('turns deleted files into tombstones, and changes nothing else', async () => {
        if (!fixture.mutate) throw new Error(`the ${name} fixture has no mutate; pass { mutable: false } to skip this check`);
        await sync('full');
        const before = await snapshot();
        const gone = await fixture.mutate.deleteSomeFiles(2);
        expect(new Set(gone).size).toBe(2);
        const goneIds = new Set(gone.map((id) => `${source()}:${id}`));
        expect(before.files.filter((r) => goneIds.has(r.id as string) && r.status === 'active')).toHaveLength(2);

        const summary = await sync('auto');
        expect(summary.mode).toBe(nextMode());
        expect(summary.counts).toMatchObject({ added: 0, changed: 0, deleted: 2, failed: 0 });
        const after = await snapshot();
        expect(
          after.files
            .filter((r) => r.status === 'deleted')
            .map((r) => r.id)
            .sort(),
        ).toEqual([...goneIds].sort());
        for (const row of after.files.filter((r) => goneIds.has(r.id as string))) {
          expect(String(row.modified_at) > String(before.files.find((r) => r.id === row.id)?.modified_at)).toBe(true);
        }
        const kept = (s: Snapshot) => ({
          ...s,
          files: s.files.filter((r) => !goneIds.has(r.id as string)),
          permissions: s.permissions.filter((p) => !goneIds.has(p.file_id as string)),
        });
        expect(kept(after)).toEqual(kept(before));
      });

      itIfMutable("moves a changed file's modified_at, and nothing else", async () => {
        if (!fixture.mutate) throw new Error(`the ${name} fixture has no mutate; pass { mutable: false } to skip this check`);
        await sync('full');
        const before = await snapshot();
        const changed = `${source()}:${await fixture.mutate.changeOneFile()}`;
        expect(before.files.find((r) => r.id === changed)).toBeDefined();

        const summary = await sync('auto');
        expect(summary.mode).toBe(nextMode());
        expect(summary.counts).toMatchObject({ added: 0, changed: 1, deleted: 0, failed: 0 });
        const after = await snapshot();
        const row = after.files.find((r) => r.id === changed);
        expect(row).toMatchObject({ status: 'active', modified_at: new Date(clock).toISOString() });
        const others = (s: Snapshot) => ({ ...s, files: s.files.filter((r) => r.id !== changed) });
        expect(others(after)).toEqual(others(before));
      });
    });
  });
}
