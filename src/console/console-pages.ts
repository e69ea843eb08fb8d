import type { ConsolePage } from './console-page';
import { accessPage } from './pages/access-page';
import { blobsPage } from './pages/blobs-page';
import { failingItemsPage } from './pages/failing-items-page';
import { queuePage } from './pages/queue-page';
import { runsPage } from './pages/runs-page';
import { sourcesPage } from './pages/sources-page';

/** The console's pages, in the order of its navigation: add a page by adding its module here (see ConsolePage). */
export const CONSOLE_PAGES: readonly ConsolePage[] = [sourcesPage, runsPage, failingItemsPage, queuePage, accessPage, blobsPage] as ConsolePage[];
