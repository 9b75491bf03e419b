// What a customer inherits: read by the customer's answer (computed_properties, computed
// mapping) and by its data view alike, so both say the same; nothing else comes with it.

/** Properties and mapping merged from the root ancestor down; the nearest definition wins. */
export function inheritedFields(chain: readonly { properties: Record<string, unknown> | null; mapping: Record<string, string> | null }[]): {
  computedProperties: Record<string, unknown>;
  computedMapping: Record<string, string>;
} {
  const computedProperties: Record<string, unknown> = {};
  const computedMapping: Record<string, string> = {};
  for (let i = chain.length - 1; i >= 0; i--) {
    Object.assign(computedProperties, chain[i].properties ?? {});
    Object.assign(computedMapping, chain[i].mapping ?? {});
  }
  return { computedProperties, computedMapping };
}
