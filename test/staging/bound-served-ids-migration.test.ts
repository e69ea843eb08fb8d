import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { migrateDownTo, migrateLatest } from '../../src/staging/database/run-migrations';
import { runSync } from '../../src/sync/run-sync';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const MIGRATION = '20261127000000_bound_served_ids';
const T = '2026-04-01T00:00:00.000Z';
const LONG_FILE = `deep/${'folder/'.repeat(200)}plan.html`;
const LONG_GROUP = `team-${'中'.repeat(200)}`;
const LONG_USER = `acct-${'x'.repeat(1100)}`;
const DIGEST_SHAPED = `~${'ab'.repeat(32)}`;
const digestOf = (nativeId: string) => `src:~${crypto.hash('sha256', nativeId, 'hex')}`;

/** Staging as the gateway wrote it before ids were bounded: every id `<source>:<native id>`, however long. */
async function stageOldRows(t: TestDatabase): Promise<void> {
  const file = (source: string, native: string) => ({
    id: `${source}:${native}`,
    source,
    native_id: native,
    name: native.slice(0, 20),
    external_url: 'https://x.example',
    mime_type: 'text/html',
    status: 'active',
    modified_at: T,
    body_html: '<p/>',
  });
  await t.db('files').insert([file('src', LONG_FILE), file('src', 'short.html'), file('src', DIGEST_SHAPED), file('other', 'keep.html')]);
  await t.db('groups').insert([
    { id: `src:${LONG_GROUP}`, source: 'src', native_id: LONG_GROUP, name: 'Long', modified_at: T },
    { id: 'src:eng', source: 'src', native_id: 'eng', name: 'Eng', modified_at: T },
  ]);
  await t
    .db('users')
    .insert({ id: `src:${LONG_USER}`, source: 'src', native_id: LONG_USER, email: 'long@example.com', state: 'Active', modified_at: T, person_id: 'person-1' });
  const entry = (file_id: string, principal_type: string, principal_id: string) => ({
    file_id,
    principal_type,
    principal_id,
    served_id: principal_id,
    action: 'VIEW',
  });
  await t
    .db('file_permissions')
    .insert([
      entry(`src:${LONG_FILE}`, 'GROUP', 'src:eng'),
      entry('src:short.html', 'GROUP', `src:${LONG_GROUP}`),
      entry('src:short.html', 'GROUP', 'src:eng'),
      entry('other:keep.html', 'USER', `src:${'y'.repeat(1100)}`),
      entry('other:keep.html', 'GROUP', '*'),
    ]);
  await t.db('group_members').insert([
    { group_id: `src:${LONG_GROUP}`, member_type: 'USER', member_id: 'src:ana', served_id: 'src:ana' },
    { group_id: 'src:eng', member_type: 'GROUP', member_id: `src:${LONG_GROUP}`, served_id: `src:${LONG_GROUP}` },
    { group_id: 'src:eng', member_type: 'USER', member_id: 'src:ana', served_id: 'src:ana' },
  ]);
  await t.db('sync_checkpoints').insert([
    { source: 'src', checkpoint: '{"position":9}', updated_at: T },
    { source: 'other', checkpoint: '{"position":3}', updated_at: T },
    { source: 'third', checkpoint: '{"position":1}', updated_at: T },
  ]);
}

describe.each(databaseKinds)('the bounded-ids migration on %s', (kind) => {
  let t: TestDatabase;
  let blobDir: string;
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-blobs-'));
    await migrateDownTo(t.db, MIGRATION);
    await stageOldRows(t);
    await migrateLatest(t.db);
  });
  afterEach(async () => {
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it('removes the rows whose ids the rule now gives otherwise, every entry serving an over-long id, and the checkpoints of their sources', async () => {
    expect((await t.db('files').orderBy('id').pluck('id')) as string[]).toEqual(['other:keep.html', 'src:short.html']);
    expect(await t.db('groups').pluck('id')).toEqual(['src:eng']);
    expect(await t.db('users').pluck('id')).toEqual([]);
    const entries = await t.db('file_permissions').orderBy(['file_id', 'principal_id']).select('file_id', 'principal_id');
    expect(entries).toEqual([
      { file_id: 'other:keep.html', principal_id: '*' },
      { file_id: 'src:short.html', principal_id: 'src:eng' },
    ]);
    expect(await t.db('group_members').select('group_id', 'member_id')).toEqual([{ group_id: 'src:eng', member_id: 'src:ana' }]);
    // `other` lost an access entry, `src` rows: both run full next; `third` lost nothing.
    expect(await t.db('sync_checkpoints').pluck('source')).toEqual(['third']);
  });

  it('lets the next sync stage every item again under its bounded id', async () => {
    const source = new ScriptedSource('src')
      .putUser({ nativeId: LONG_USER, email: 'long@example.com', active: true })
      .putGroup({ nativeId: LONG_GROUP, name: 'Long', members: [{ type: 'USER', nativeId: LONG_USER }] })
      .putGroup({ nativeId: 'eng', name: 'Eng', members: [{ type: 'GROUP', nativeId: LONG_GROUP }] });
    for (const nativeId of [LONG_FILE, 'short.html', DIGEST_SHAPED])
      source.html(nativeId, '<p>again</p>', [
        { type: 'GROUP', nativeId: LONG_GROUP },
        { type: 'GROUP', nativeId: 'eng' },
      ]);
    const summary = await runSync(
      source,
      { db: t.db, blobs: new FsBlobStore(blobDir), logger: pino({ level: 'silent' }), now: () => new Date('2026-05-01T00:00:00Z') },
      { mode: 'auto' },
    );
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full', counts: { failed: 0 } });
    expect(((await t.db('files').where({ source: 'src' }).orderBy('id').pluck('id')) as string[]).sort()).toEqual(
      [digestOf(LONG_FILE), digestOf(DIGEST_SHAPED), 'src:short.html'].sort(),
    );
    expect(await t.db('file_permissions').where({ file_id: 'src:short.html' }).orderBy('principal_id').pluck('principal_id')).toEqual(
      [digestOf(LONG_GROUP), 'src:eng'].sort(),
    );
  });
});
