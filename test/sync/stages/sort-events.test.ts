import type { SyncEvent } from '../../../src/adapters/adapter';
import { RunTally } from '../../../src/sync/run-context';
import { sortEvents } from '../../../src/sync/stages/sort-events';

const budget = { maxFailures: 1000, maxFailureRatio: 1, minItems: 1 };
const file = (id: string, name = id): SyncEvent => ({
  type: 'file',
  file: { nativeId: id, name, externalUrl: 'https://x.example', mimeType: 'text/html', content: { kind: 'html', html: 'x' }, access: [] },
});

describe('sortEvents (stage 2a: decide, no I/O)', () => {
  it('keeps the last event for an id, under its global id', () => {
    const sorted = sortEvents(
      'src',
      [file('a', 'first'), file('b'), file('a', 'second'), { type: 'user', user: { nativeId: 'u', email: 'u@x.example', active: true } }],
      new RunTally(budget),
    );
    expect([...sorted.files.keys()]).toEqual(['src:a', 'src:b']);
    expect(sorted.files.get('src:a')?.name).toBe('second');
    expect([...sorted.users.keys()]).toEqual(['src:u']);
  });

  it('turns deletes into tombstones, inactivations and group deletions, dropping an earlier write of the file, and counts files apart from users and groups', () => {
    const tally = new RunTally(budget);
    const sorted = sortEvents(
      'src',
      [
        file('a'),
        { type: 'delete', kind: 'file', nativeId: 'a' },
        { type: 'delete', kind: 'user', nativeId: 'u' },
        { type: 'delete', kind: 'group', nativeId: 'g' },
      ],
      tally,
    );
    expect(sorted.files.size).toBe(0);
    expect(sorted.batch).toMatchObject({ tombstones: ['src:a'], inactivate: ['src:u'], deleteGroups: ['src:g'] });
    expect(tally.counts.deleted).toBe(1);
    expect(tally.identities.deleted).toBe(2);
  });

  it('a file event after a delete of the same file wins (a feed deleted it, then it was made again): no tombstone left, not counted deleted', () => {
    const tally = new RunTally(budget);
    const sorted = sortEvents('src', [file('a'), { type: 'delete', kind: 'file', nativeId: 'a' }, file('a', 'again')], tally);
    expect(sorted.files.get('src:a')?.name).toBe('again');
    expect(sorted.batch.tombstones).toEqual([]);
    expect(tally.counts.deleted).toBe(0);
  });

  it('keeps kinds apart: a delete of a group or user never drops a file event that shares its global id, nor the reverse', () => {
    const tally = new RunTally(budget);
    const group = (id: string): SyncEvent => ({ type: 'group', group: { nativeId: id, members: [] } });
    const sorted = sortEvents(
      'src',
      [
        file('42'),
        group('7'),
        { type: 'delete', kind: 'group', nativeId: '42' },
        { type: 'delete', kind: 'user', nativeId: '42' },
        { type: 'delete', kind: 'file', nativeId: '7' },
      ],
      tally,
    );
    expect([...sorted.files.keys()]).toEqual(['src:42']);
    expect([...sorted.groups.keys()]).toEqual(['src:7']);
    expect(sorted.batch).toMatchObject({ tombstones: ['src:7'], inactivate: ['src:42'], deleteGroups: ['src:42'] });
    expect([tally.counts.deleted, tally.identities.deleted]).toEqual([1, 2]);
  });

  it('a user or group written after its delete in the same batch wins (deletes are applied after writes): not deleted, not counted', () => {
    const tally = new RunTally(budget);
    const sorted = sortEvents(
      'src',
      [
        { type: 'delete', kind: 'user', nativeId: 'u' },
        { type: 'user', user: { nativeId: 'u', email: 'u@x.example', active: true } },
        { type: 'delete', kind: 'group', nativeId: 'g' },
        { type: 'group', group: { nativeId: 'g', members: [] } },
        { type: 'group', group: { nativeId: 'h', members: [] } },
        { type: 'delete', kind: 'group', nativeId: 'h' },
        { type: 'delete', kind: 'group', nativeId: 'h' },
      ],
      tally,
    );
    expect([...sorted.users.keys()]).toEqual(['src:u']);
    expect([...sorted.groups.keys()]).toEqual(['src:g']);
    expect(sorted.batch).toMatchObject({ inactivate: [], deleteGroups: ['src:h'] });
    expect(tally.identities.deleted).toBe(1);
  });

  it('marks a failed item seen (a sweep keeps it as it was), but not a failure that names no item', () => {
    const sorted = sortEvents(
      'src',
      [
        { type: 'failure', kind: 'file', nativeId: 'x', error: new Error('e') },
        { type: 'failure', error: new Error('e') },
      ],
      new RunTally(budget),
    );
    expect(sorted.batch.seen).toEqual([{ kind: 'file', id: 'src:x' }]);
    expect(sorted.narrow.size).toBe(0);
  });

  it('notes a failed file with what its source still grants for narrowing, the last event for the file winning', () => {
    const atMost = [{ type: 'USER' as const, nativeId: 'ana' }];
    const failure = (id: string): SyncEvent => ({ type: 'failure', kind: 'file', nativeId: id, error: new Error('e'), accessAtMost: atMost });
    const sorted = sortEvents(
      'src',
      [file('a'), failure('a'), failure('b'), file('b'), failure('c'), { type: 'delete', kind: 'file', nativeId: 'c' }],
      new RunTally(budget),
    );
    expect([...sorted.narrow]).toEqual([['src:a', atMost]]);
    expect([...sorted.files.keys()]).toEqual(['src:b']);
    expect(sorted.batch.seen).toEqual([
      { kind: 'file', id: 'src:a' },
      { kind: 'file', id: 'src:b' },
      { kind: 'file', id: 'src:c' },
    ]);
  });

  it('notes the files the events settle only when the run reconciles access', () => {
    const touched = new Set<string>();
    sortEvents(
      'src',
      [file('a'), { type: 'delete', kind: 'file', nativeId: 'b' }, { type: 'failure', kind: 'file', nativeId: 'c', error: new Error('e') }],
      new RunTally(budget, touched),
    );
    expect([...touched].sort()).toEqual(['src:a', 'src:b', 'src:c']);
    expect(() => sortEvents('src', [file('a')], new RunTally(budget))).not.toThrow();
  });
});
