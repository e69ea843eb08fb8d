/** `POST /batch` (rules in rules/batch.ts). */
import type { Route } from '../api/route-table';
import { runBatch } from '../rules/batch';

export const batchRoutes: Route[] = [{ method: 'POST', path: '/batch', handler: runBatch }];
