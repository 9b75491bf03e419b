/**
 * Data sources belong to access groups: a customer's queries (dashboard panels, CSV
 * exports, deliveries, report-builder queries) run only on a data source its access group
 * may use. A mapping to any other one counts as no mapping at all, so a customer mapped
 * before a restriction sees exactly what a customer without a mapping sees.
 */

/** A data source row as read: `accessGroupIds` is the stored list, or null for every group. */
export interface RestrictedSource {
  accessGroupIds: number[] | null;
}

/** Whether customers of that access group may query the data source (no group: unrestricted ones only). */
export function mayUse(source: RestrictedSource, accessGroupId: number | null): boolean {
  const groups = source.accessGroupIds;
  return groups === null || (accessGroupId !== null && groups.includes(accessGroupId));
}

/** The data sources customers of that access group may query; every query path filters through this. */
export function usableSources<T extends RestrictedSource>(sources: readonly T[], accessGroupId: number | null): T[] {
  return sources.filter((source) => mayUse(source, accessGroupId));
}

/**
 * The data source a customer's computed mapping assigns to a schema, when its access group may
 * use it; otherwise undefined (exactly as if nothing were mapped).
 */
export function sourceForSchema<T extends RestrictedSource & { id: number }>(
  mapping: Record<string, string>,
  schemaId: number,
  sources: readonly T[],
  accessGroupId: number | null,
): T | undefined {
  const id = mapping[String(schemaId)];
  const source = sources.find((s) => String(s.id) === id);
  return source && mayUse(source, accessGroupId) ? source : undefined;
}
