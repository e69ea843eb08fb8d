import path from 'node:path';
import pino from 'pino';
import { restAdapterFactory } from '../../src/adapters/rest';
import { startFakeWiki } from '../helpers/fake-wiki';
import { describeAdapterContract } from './describe-adapter-contract';

const MANIFEST = path.join(__dirname, '../adapters/rest/fixtures/example-wiki.yaml');

/**
 * The rest adapter, built by its factory from its settings as `sync` builds it, over a manifest of
 * the example wiki (no code): the fake wiki's REST API on loopback, two items per listing page,
 * bearer auth. Mutations edit the fake as people edit the wiki; full runs find deletions by sweeping.
 */
describeAdapterContract('rest', async () => {
  const wiki = await startFakeWiki({ maxPageSize: 2 });
  const env = { REST_MANIFEST: MANIFEST, WIKI_URL: wiki.baseUrl, WIKI_TOKEN: wiki.token };
  return {
    adapter: await restAdapterFactory.create(env, { logger: pino({ level: 'silent' }) }),
    mutate: {
      deleteSomeFiles: async (n) => {
        const ids = [...wiki.pages.keys()].slice(-n);
        for (const id of ids) wiki.pages.delete(id);
        return ids;
      },
      changeOneFile: async () => {
        wiki.editPage('p-holidays', '<p>27 days a year.</p>');
        return 'p-holidays';
      },
    },
    cleanup: () => wiki.close(),
  };
});
