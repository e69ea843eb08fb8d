import { PlatformConfigError } from './platform-error';

/**
 * The Data API's regional servers (seed: US default, EU, CA, government cloud (US), Japan, UK and
 * two further US production servers; their bases from reference §7.1). Each base ends in
 * `/export/v1/records`.
 */
export const DATA_API_REGIONS = {
  us: 'https://api.moveworks.ai/export/v1/records',
  eu: 'https://api.am-eu-central.moveworks.ai/export/v1/records',
  ca: 'https://api.am-ca-central.moveworks.ai/export/v1/records',
  gov: 'https://api.moveworksgov.ai/export/v1/records',
  jp: 'https://api.jp.moveworks.com/export/v1/records',
  uk: 'https://api.uk.moveworks.com/export/v1/records',
  'us-prod4': 'https://api.prod4.us.moveworks.com/export/v1/records',
  'us-prod3': 'https://api.prod3.us.moveworks.com/export/v1/records',
} as const;

export type DataApiRegion = keyof typeof DATA_API_REGIONS;

export const DATA_API_REGION_NAMES = Object.keys(DATA_API_REGIONS) as DataApiRegion[];

export function isDataApiRegion(name: string): name is DataApiRegion {
  return Object.prototype.hasOwnProperty.call(DATA_API_REGIONS, name);
}

/** Where the Data API of a region (by name) or of an explicit base URL lives; one of the two must be given. */
export function dataApiBaseUrl(target: { region?: string; baseUrl?: string }): string {
  if (target.baseUrl !== undefined && target.region !== undefined) throw new PlatformConfigError('Give a Data API region or a base URL, not both');
  if (target.baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(target.baseUrl);
    } catch {
      throw new PlatformConfigError(`The Data API base URL is not an absolute URL: ${target.baseUrl}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PlatformConfigError(`The Data API base URL must be http(s): ${target.baseUrl}`);
    return url.href.replace(/\/+$/, '');
  }
  const region = (target.region ?? 'us').trim().toLowerCase();
  if (!isDataApiRegion(region)) throw new PlatformConfigError(`Unknown Data API region "${target.region}"; known regions: ${DATA_API_REGION_NAMES.join(', ')}`);
  return DATA_API_REGIONS[region];
}

/** The token endpoint on the same host as a Data API base (`/oauth/v1/token`, reference §7.1). */
export function tokenUrlFor(dataApiBase: string): string {
  return `${new URL(dataApiBase).origin}/oauth/v1/token`;
}
