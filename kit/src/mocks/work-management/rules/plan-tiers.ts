/**
 * What a domain's plan allows (seed "Export flows", availability; reference §8):
 * - graph exports only for accounts of an organization on an enterprise tier (`enterprise` or
 *   `enterprise_plus`);
 * - resource exports only for service accounts of the top enterprise tier (`enterprise_plus`) or
 *   of an organization with the compliance add-on (at most one in progress per workspace:
 *   rules/jobs.ts);
 * - organization exports only for service accounts of an enterprise organization;
 * - the audit log only for enterprise domains (its token rules: rules/audit-log.ts).
 * A caller who is not a service account gets 403 (routes/job-routes.ts); a domain whose plan lacks
 * the feature gets 402 Payment Required, the reference's status for a feature the plan does not
 * include (§3).
 */
import { ApiError } from '../api/api-error';
import type { AddOn, PlanTier, Workspace } from '../model-types';

export const PLAN_TIERS: readonly PlanTier[] = ['free', 'premium', 'business', 'enterprise', 'enterprise_plus'];
export const ADD_ONS: readonly AddOn[] = ['compliance'];

export const isEnterprise = (ws: Workspace): boolean => ws.isOrganization && (ws.tier === 'enterprise' || ws.tier === 'enterprise_plus');

export const paymentRequired = (message: string): ApiError => new ApiError(402, message);

export function assertGraphExportAllowed(ws: Workspace): void {
  if (!isEnterprise(ws)) throw paymentRequired('Graph exports are only available to organizations on an Enterprise tier.');
}

export function assertResourceExportAllowed(ws: Workspace): void {
  const allowed = ws.isOrganization && (ws.tier === 'enterprise_plus' || ws.addOns.includes('compliance'));
  if (!allowed) throw paymentRequired('Resource exports are only available on the Enterprise+ tier or with the compliance add-on.');
}

export function assertOrganizationExportAllowed(ws: Workspace): void {
  if (!isEnterprise(ws)) throw paymentRequired('Organization exports are only available to organizations on an Enterprise tier.');
}

/** Validates a plan change from `PUT /_admin/workspaces/{gid}/plan`. */
export function parsePlan(data: Record<string, unknown>): { tier?: PlanTier; addOns?: AddOn[] } {
  const out: { tier?: PlanTier; addOns?: AddOn[] } = {};
  if (data.tier !== undefined) {
    if (!PLAN_TIERS.includes(data.tier as PlanTier)) throw new ApiError(400, `tier: must be one of ${PLAN_TIERS.join(', ')}`);
    out.tier = data.tier as PlanTier;
  }
  if (data.add_ons !== undefined) {
    if (!Array.isArray(data.add_ons) || data.add_ons.some((a) => !ADD_ONS.includes(a as AddOn)))
      throw new ApiError(400, `add_ons: a list of ${ADD_ONS.join(', ')}`);
    out.addOns = [...new Set(data.add_ons as AddOn[])];
  }
  return out;
}
