/**
 * The Data API's regional servers (seed: US default, EU, CA, government cloud (US), Japan, UK and
 * two further US production servers). One simulator serves them all, by `Host` or by the path
 * prefix `/regions/<id>`; a bare `/export/v1/records` is the default (US).
 */
import type { Request } from 'express';
import { DATA_BASE } from './lifecycle-table';

export interface DataRegion {
  id: string;
  name: string;
  /** The invented host that stands for the region's real one. */
  host: string;
}

export const DATA_REGIONS: readonly DataRegion[] = [
  { id: 'us', name: 'US (default)', host: 'api.us.platform.example' },
  { id: 'eu', name: 'EU', host: 'api.eu.platform.example' },
  { id: 'ca', name: 'CA', host: 'api.ca.platform.example' },
  { id: 'gov', name: 'Government cloud (US)', host: 'api.gov.platform.example' },
  { id: 'jp', name: 'Japan', host: 'api.jp.platform.example' },
  { id: 'uk', name: 'UK', host: 'api.uk.platform.example' },
  { id: 'us-prod4', name: 'US production 4', host: 'api.prod4.us.platform.example' },
  { id: 'us-prod3', name: 'US production 3', host: 'api.prod3.us.platform.example' },
];

/** The region a request addressed and the absolute base its links are built on; undefined for an unknown `/regions/<id>`. */
export function regionOf(req: Request): { region: DataRegion; base: string } | undefined {
  const origin = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
  const prefix = typeof req.params.region === 'string' ? req.params.region : undefined;
  if (prefix !== undefined) {
    const region = DATA_REGIONS.find((r) => r.id === prefix);
    return region ? { region, base: `${origin}/regions/${region.id}${DATA_BASE}` } : undefined;
  }
  const host = (req.get('host') ?? '').replace(/:\d+$/, '').toLowerCase();
  const byHost = DATA_REGIONS.find((r) => r.host === host);
  return { region: byHost ?? (DATA_REGIONS[0] as DataRegion), base: `${origin}${DATA_BASE}` };
}
