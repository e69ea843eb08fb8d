import path from 'node:path';
import { projectRoot } from '../lib/project-root';

/**
 * Which contract a run holds the gateway to.
 *
 * - `platform` (the default of `conformance --url`): what the platform requires and documents — its
 *   published spec, its validator and its starter server. A gateway written from the platform's
 *   own spec passes; what the platform tolerates is at most a warning.
 * - `strict`: this project's own contract (`openapi/content-gateway.yaml`), stricter wherever we
 *   promise more (ETag and ranges on downloads, `status` and `state` always present, our error
 *   codes only). Our tests hold our own gateway to it.
 */
export type Profile = 'platform' | 'strict';

export const PROFILES: readonly Profile[] = ['platform', 'strict'];

export function isProfile(value: string): value is Profile {
  return (PROFILES as readonly string[]).includes(value);
}

/** The OpenAPI document each profile validates responses against. */
export function contractPathFor(profile: Profile): string {
  return path.join(projectRoot(), 'openapi', profile === 'strict' ? 'content-gateway.yaml' : 'platform-gateway.yaml');
}
