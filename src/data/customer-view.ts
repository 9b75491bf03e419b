import { inheritedFields } from "./inherited-fields";
import type { PlaceholderContext } from "./placeholders";
import { customerVersions } from "./query-cache";
import { usableSources, type RestrictedSource } from "./sources/access";

/**
 * The customer's data view: what every query run for one customer binds and where it runs —
 * dashboards, the report builder, saved reports' deliveries, alerts and `dashboards validate`
 * all take it from here, so a customer sees the same data on every path.
 */

/** One customer of a chain as the data plane reads it: the customer first, then each ancestor up to the root. */
export interface ChainLink {
  id: number;
  providedId: string;
  name: string;
  isDemo: 0 | 1;
  accessGroupId: number | null;
  properties: Record<string, unknown> | null;
  mapping: Record<string, string> | null;
  cacheVersion?: number | null;
}

export interface CustomerDataView<S extends RestrictedSource> {
  /** What placeholders bind: the customer (computed properties) and the variables' values. */
  context: PlaceholderContext;
  /** The computed mapping: which data source serves each schema. */
  mapping: Record<string, string>;
  /** Only the data sources the customer's access group may use: a mapping to another one is no mapping. */
  sources: S[];
  /** The customer chain's invalidation versions, part of every query-cache key. */
  cacheVersions: string[];
  isDemo: boolean;
}

/** The data view of `chain[0]` (a non-empty chain) over all data sources, with the given variable values. */
export function customerDataView<S extends RestrictedSource>(
  chain: readonly ChainLink[],
  sources: readonly S[],
  variables: Record<string, unknown> = {},
): CustomerDataView<S> {
  const customer = chain[0];
  const { computedProperties, computedMapping } = inheritedFields(chain);
  return {
    context: { customer: { provided_id: customer.providedId, name: customer.name, properties: computedProperties }, variables },
    mapping: computedMapping,
    sources: usableSources(sources, customer.accessGroupId),
    cacheVersions: customerVersions([...chain]),
    isDemo: customer.isDemo === 1,
  };
}
