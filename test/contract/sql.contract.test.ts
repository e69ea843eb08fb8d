import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqlAdapter, resolveSqlMapping, parseDatabaseUrl } from '../../src/adapters/sql';
import { createFixtureSchema, DOCUMENT_COUNT, FixtureWriter, fixtureMapping, seedFixture } from '../helpers/sql-fixture';
import { createSqlSource, sourceKinds } from '../helpers/sql-source';
import { describeAdapterContract } from './describe-adapter-contract';

/**
 * The SQL adapter against a real database of each kind this run covers (SQLite always; Postgres
 * with TEST_DATABASE_URL; MariaDB with TEST_MARIADB_URL), in both incremental modes: by the
 * documents' modified-time column (deletions found by listing ids) and by a change table.
 * Each fixture is a fresh database `t_<random>`, dropped afterwards.
 */
for (const kind of sourceKinds) {
  for (const mode of ['modified', 'changes'] as const) {
    describeAdapterContract(`sql on ${kind} (incremental by ${mode})`, async () => {
      const source = await createSqlSource(kind);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-map-'));
      try {
        await createFixtureSchema(source.db);
        await seedFixture(source);
      } catch (error) {
        await source.destroy();
        throw error;
      }
      const writer = new FixtureWriter(source);
      let next = DOCUMENT_COUNT;
      let edits = 0;
      return {
        adapter: createSqlAdapter({
          connection: parseDatabaseUrl(source.url),
          mapping: resolveSqlMapping(fixtureMapping(mode)),
          sourceName: 'sql',
          pageSize: 5,
        }),
        mutate: {
          deleteSomeFiles: async (n) => {
            const ids = Array.from({ length: n }, () => next--);
            await writer.deleteDocuments(ids);
            return ids.map(String);
          },
          changeOneFile: async () => {
            await writer.updateDocument(2, { body: `<p>Edited ${++edits} times.</p>` });
            return '2';
          },
        },
        cleanup: async () => {
          await source.destroy();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  }
}
