import { inheritedFields } from "../data/inherited-fields";
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE } from "../view/presentation";
import type { Customer } from "./schemas";
import type { CustomerViewRow } from "./repository";

/**
 * The API's view of a customer from its row and its ancestors (nearest first).
 * Computed fields merge shallowly from the root down, so the nearest definition wins.
 */
export function toCustomer(chain: CustomerViewRow[], token: string): Customer {
  const self = chain[0];
  const { computedProperties, computedMapping } = inheritedFields(chain);
  return {
    token,
    name: self.name,
    provided_id: self.providedId,
    emails: self.emails,
    group_tags: self.groupTags,
    hierarchy_level: self.hierarchyLevel,
    access_group: self.accessGroup,
    is_demo_group: self.isDemo === 1,
    properties: self.properties,
    computed_properties: computedProperties,
    parent_schema_datasource_mapping: self.mapping,
    computed_parent_schema_datasource_mapping: computedMapping,
    theme: self.themeName,
    locale: self.locale,
    timezone: self.timezone,
    ...computedPresentationFields(chain),
  };
}

/**
 * The presentation a customer's views get unless a token or a delivery names another: the
 * own value, else the nearest ancestor's, else the access group's default theme (`null`: the
 * built-in one), `en-US`, `UTC`.
 */
function computedPresentationFields(chain: CustomerViewRow[]) {
  const themed = chain.find((link) => link.themeId !== null);
  return {
    computed_theme: themed ? themed.themeName : chain[0].defaultTheme,
    computed_locale: chain.find((link) => link.locale !== null)?.locale ?? DEFAULT_LOCALE,
    computed_timezone: chain.find((link) => link.timezone !== null)?.timezone ?? DEFAULT_TIMEZONE,
  };
}

/** Follows parent links through `rowsById` to build each customer's chain. */
export function chainOf(row: CustomerViewRow, rowsById: Map<number, CustomerViewRow>): CustomerViewRow[] {
  const chain = [row];
  let parentId = row.parentId;
  while (parentId !== null) {
    const parent = rowsById.get(parentId);
    if (!parent) break;
    chain.push(parent);
    parentId = parent.parentId;
  }
  return chain;
}

/** Emails: duplicates (case-insensitive) removed, first spelling and order kept. */
export function normaliseEmails(emails: string[]): string[] {
  const seen = new Set<string>();
  return emails.filter((email) => {
    const key = email.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
