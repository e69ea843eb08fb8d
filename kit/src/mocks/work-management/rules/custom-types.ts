/**
 * The `custom_type` filter (seed "Common parameters"): an unknown custom type gid gives 400; the
 * empty string returns the objects with no custom type; an omitted parameter means no filter.
 */
import { badRequest } from '../api/api-error';
import type { Gid, WorkManagementStore } from '../model';

export function customTypeFilter(store: WorkManagementStore, raw: string | undefined): ((item: { customType: Gid | null }) => boolean) | undefined {
  if (raw === undefined) return undefined;
  if (raw === '') return (item) => item.customType === null;
  if (!store.indexes.customTypes.has(raw)) throw badRequest(`custom_type: Unknown object: ${raw}`);
  return (item) => item.customType === raw;
}
