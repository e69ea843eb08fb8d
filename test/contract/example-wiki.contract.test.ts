import pino from 'pino';
import { exampleWikiAdapterFactory } from '../../src/adapters/example-wiki';
import { startFakeWiki } from '../helpers/fake-wiki';
import { describeAdapterContract } from './describe-adapter-contract';

/**
 * The example-wiki adapter, built by its factory from its environment settings as `sync` builds
 * it, against a fake of the wiki's REST API on loopback (two items per listing page, bearer auth).
 * Mutations edit the fake as people edit the wiki; the full runs find deletions by sweeping.
 */
describeAdapterContract('example-wiki', async () => {
  const wiki = await startFakeWiki({ maxPageSize: 2 });
  const env = { EXAMPLE_WIKI_URL: wiki.baseUrl, EXAMPLE_WIKI_TOKEN: wiki.token };
  return {
    adapter: await exampleWikiAdapterFactory.create(env, { logger: pino({ level: 'silent' }) }),
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
