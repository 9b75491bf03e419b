import { and, asc, count, eq, inArray, min, notExists, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { jsonList } from "../db/json-list";
import { jsonOf, jsonText, parsedRows, sqliteFlag } from "../db/rows";
import { sqlNow } from "../db/time";
import { customerGroupTags, customers, dataSources, groupTags, hierarchyLevels, reportSchedules, schemas } from "../db/schema";
import { z } from "zod";
import { allOf } from "../db/conditions";

/**
 * Data access for customers. Every function returns an unexecuted query so that services
 * can put several of them in one `db.batch` (one D1 round trip).
 */

export type CustomerRow = typeof customers.$inferSelect;

/**
 * A customer as the chain and page queries return it: its columns under the schema's names
 * (raw rows are not mapped, so `isDemo` is SQLite's 0/1), with its level, access group and
 * tags ([] on an ancestor); `depth` 0 is the customer, 1 its parent, …
 */
const CustomerViewRow = z.object({
  id: z.number(),
  providedId: z.string(),
  name: z.string(),
  isDemo: sqliteFlag,
  emails: jsonText(z.array(z.string())),
  properties: jsonOf(customers.properties).nullable(),
  mapping: jsonOf(customers.mapping).nullable(),
  tokenNonce: z.string(),
  tokenHash: z.string(),
  cacheVersion: z.number(),
  accessGroupId: z.number().nullable(),
  parentId: z.number().nullable(),
  hierarchyLevelId: z.number(),
  hierarchyLevel: z.string(),
  levelPosition: z.number(),
  accessGroup: z.string().nullable(),
  groupTags: jsonText(z.array(z.string())),
  depth: z.number(),
  inPage: z.number().optional(),
  // Presentation: the own values; the theme's name and the access group's default theme by name.
  themeId: z.number().nullable(),
  themeName: z.string().nullable(),
  locale: z.string().nullable(),
  timezone: z.string().nullable(),
  defaultTheme: z.string().nullable(),
});
export type CustomerViewRow = z.infer<typeof CustomerViewRow>;

/**
 * A customer's columns; its tags only where `shown` holds (the customer answered, not an
 * ancestor read for its computed fields: an ancestor's tags are never shown, and reading
 * them costs a subquery per level). Elsewhere `groupTags` is '[]'.
 */
const viewColumns = (shown: string) =>
  sql.raw(`c.id, c.provided_id AS providedId, c.name, c.is_demo AS isDemo, c.emails, c.properties, c.mapping,
  c.token_nonce AS tokenNonce, c.token_hash AS tokenHash, c.cache_version AS cacheVersion, c.access_group_id AS accessGroupId, c.parent_id AS parentId,
  c.hierarchy_level_id AS hierarchyLevelId, l.name AS hierarchyLevel, l.position AS levelPosition, g.name AS accessGroup,
  c.theme_id AS themeId, (SELECT th.name FROM themes th WHERE th.id = c.theme_id) AS themeName, c.locale, c.timezone,
  (SELECT th.name FROM themes th WHERE th.access_group_id = c.access_group_id AND th.is_default = 1) AS defaultTheme,
  CASE WHEN ${shown} THEN (SELECT json_group_array(name) FROM (SELECT t.name FROM customer_group_tags ct JOIN group_tags t ON t.id = ct.group_tag_id
     WHERE ct.customer_id = c.id ORDER BY ct.position)) ELSE '[]' END AS groupTags`);

const viewJoins = sql.raw(`JOIN hierarchy_levels l ON l.id = c.hierarchy_level_id LEFT JOIN access_groups g ON g.id = c.access_group_id`);

/** The customer matched by `where` (a condition on `customers`) and all its ancestors, nearest first. */
export function customerChain(db: Database, where: SQL) {
  // Raw: the builder has no recursive CTE.
  return parsedRows(
    db,
    sql`
    WITH RECURSIVE chain(id, depth) AS (
      SELECT id, 0 FROM customers WHERE ${where}
      UNION ALL
      SELECT p.parent_id, chain.depth + 1 FROM customers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
    )
    SELECT chain.depth AS depth, ${viewColumns("chain.depth = 0")}
      FROM chain JOIN customers c ON c.id = chain.id ${viewJoins}
     ORDER BY chain.depth`,
    CustomerViewRow,
  );
}

/** A chain row of customerChains: which of the matched customers (`root`) it belongs to. */
const RootedViewRow = CustomerViewRow.extend({ root: z.number() });
export type RootedViewRow = z.infer<typeof RootedViewRow>;

/**
 * The chains of several customers in one query: the customers matched by `where`, ordered by
 * provided_id (`limit`/`offset` page through them), each with its ancestors; rows ordered by
 * the customer's provided_id, then nearest first. Group them by `root` (the customer's id).
 */
export function customerChains(db: Database, where: SQL, page?: { limit: number; offset: number }) {
  const paged = page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``;
  return parsedRows(
    db,
    sql`
    WITH RECURSIVE roots(id, provided_id) AS (
      SELECT id, provided_id FROM customers WHERE ${where} ORDER BY provided_id ${paged}
    ),
    chain(root, root_key, id, depth) AS (
      SELECT id, provided_id, id, 0 FROM roots
      UNION ALL
      SELECT chain.root, chain.root_key, p.parent_id, chain.depth + 1 FROM customers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
    )
    SELECT chain.root AS root, chain.depth AS depth, ${viewColumns("chain.depth = 0")}
      FROM chain JOIN customers c ON c.id = chain.id ${viewJoins}
     ORDER BY chain.root_key, chain.depth`,
    RootedViewRow,
  );
}

// Which customer a chain starts from (and whose children childrenSummary counts).
export const visibleByProvidedId = (providedId: string, accessGroupId: number) =>
  allOf(eq(customers.providedId, providedId), eq(customers.accessGroupId, accessGroupId));
export const visibleByTokenHash = (tokenHash: string, accessGroupId: number) =>
  allOf(eq(customers.tokenHash, tokenHash), eq(customers.accessGroupId, accessGroupId));
export const byId = (id: number) => eq(customers.id, id);
/** Any customer by its provided_id, in any access group (the admin plane sees them all). */
export const byProvidedId = (providedId: string) => eq(customers.providedId, providedId);
/** Any customer by its token's hash, in any access group (the token itself authorises). */
export const byTokenHash = (tokenHash: string) => eq(customers.tokenHash, tokenHash);

export interface ListFilter {
  accessGroupId: number;
  parentProvidedId?: string;
  hierarchyLevelName?: string;
}

function listWhere(db: Database, filter: ListFilter): SQL {
  const parent = alias(customers, "parent");
  return allOf(
    eq(customers.accessGroupId, filter.accessGroupId),
    filter.parentProvidedId === undefined
      ? undefined
      : eq(customers.parentId, db.select({ id: parent.id }).from(parent).where(eq(parent.providedId, filter.parentProvidedId))),
    filter.hierarchyLevelName === undefined
      ? undefined
      : eq(
          customers.hierarchyLevelId,
          db.select({ id: hierarchyLevels.id }).from(hierarchyLevels).where(eq(hierarchyLevels.name, filter.hierarchyLevelName)),
        ),
  );
}

/**
 * One page of customers (ordered by creation) plus every ancestor any of them needs for
 * its computed fields; rows with `inPage = 1` are the page itself.
 */
export function customerPage(db: Database, filter: ListFilter, page?: { limit: number; offset: number }) {
  const limit = page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``;
  // Raw: the builder has no recursive CTE.
  return parsedRows(
    db,
    sql`
    WITH RECURSIVE page(id) AS (
      SELECT id FROM customers WHERE ${listWhere(db, filter)} ORDER BY id ${limit}
    ),
    chain(id) AS (
      SELECT id FROM page
      UNION
      SELECT p.parent_id FROM customers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
    )
    SELECT 0 AS depth, (c.id IN (SELECT id FROM page)) AS inPage, ${viewColumns("c.id IN (SELECT id FROM page)")}
      FROM chain JOIN customers c ON c.id = chain.id ${viewJoins}
     ORDER BY c.id`,
    CustomerViewRow,
  );
}

export function customerCount(db: Database, filter: ListFilter) {
  return db.select({ total: count() }).from(customers).where(listWhere(db, filter));
}

// ---- what create and update look up before writing -------------------------------------

/** Any customer with this provided_id, in any access group. */
export function customerOwner(db: Database, providedId: string) {
  return db
    .select({ id: customers.id, accessGroupId: customers.accessGroupId })
    .from(customers)
    .where(eq(customers.providedId, providedId));
}

/** A prospective parent, looked up across the whole workspace. */
export function parentCandidate(db: Database, providedId: string) {
  return db
    .select({ id: customers.id, accessGroupId: customers.accessGroupId, levelPosition: hierarchyLevels.position })
    .from(customers)
    .innerJoin(hierarchyLevels, eq(hierarchyLevels.id, customers.hierarchyLevelId))
    .where(eq(customers.providedId, providedId));
}

/** The highest (smallest) level position among the children of the customer matched by `customerWhere`. */
export function childrenSummary(db: Database, customerWhere: SQL) {
  const child = alias(customers, "child");
  return db
    .select({ children: count(), topChildPosition: min(hierarchyLevels.position) })
    .from(child)
    .innerJoin(hierarchyLevels, eq(hierarchyLevels.id, child.hierarchyLevelId))
    .where(eq(child.parentId, db.select({ id: customers.id }).from(customers).where(customerWhere)));
}

const levelColumns = { id: hierarchyLevels.id, name: hierarchyLevels.name, position: hierarchyLevels.position };

/** A level by name, or the root level when no name is given. */
export function hierarchyLevel(db: Database, name: string | undefined) {
  return name === undefined
    ? db.select(levelColumns).from(hierarchyLevels).orderBy(asc(hierarchyLevels.position)).limit(1)
    : db.select(levelColumns).from(hierarchyLevels).where(eq(hierarchyLevels.name, name));
}

export function groupTagsByKey(db: Database, keys: string[]) {
  return db
    .select({ id: groupTags.id, name: groupTags.name, nameKey: groupTags.nameKey })
    .from(groupTags)
    .where(inArray(groupTags.nameKey, jsonList(keys)));
}

/** Schemas by id as given in a mapping's keys (text: "01" is not schema 1). */
export function schemasById(db: Database, ids: string[]) {
  return db
    .select({ id: schemas.id })
    .from(schemas)
    .where(inArray(sql`CAST(${schemas.id} AS TEXT)`, jsonList(ids)));
}

/** Data sources named by numeric id (as text) or by provided_id. */
export function dataSourcesByReference(db: Database, references: string[]) {
  return db
    .select({ id: dataSources.id, providedId: dataSources.providedId, accessGroupIds: dataSources.accessGroupIds })
    .from(dataSources)
    .where(or(inArray(sql`CAST(${dataSources.id} AS TEXT)`, jsonList(references)), inArray(dataSources.providedId, jsonList(references))));
}

export function paidCustomerCount(db: Database) {
  return db.select({ total: count() }).from(customers).where(eq(customers.isDemo, false));
}

// ---- writes ---------------------------------------------------------------------------

export type NewCustomer = Pick<
  CustomerRow,
  | "providedId"
  | "name"
  | "hierarchyLevelId"
  | "parentId"
  | "isDemo"
  | "properties"
  | "mapping"
  | "tokenNonce"
  | "tokenHash"
  | "themeId"
  | "locale"
  | "timezone"
> & {
  accessGroupId: number;
  emails: string[];
};

/**
 * Inserts unless the provided_id exists (a concurrent create wins quietly) or the
 * paid-customer limit is reached; both checks happen inside the statement, so parallel
 * creates cannot overshoot the limit. `paidLimit` 0 means unlimited.
 */
export function insertCustomer(db: Database, c: NewCustomer, paidLimit: number) {
  // Raw: an INSERT … SELECT … WHERE, and drizzle's insert-select must list every column of the table, defaults included.
  return db.run(sql`
    INSERT INTO customers (provided_id, name, access_group_id, hierarchy_level_id, parent_id, is_demo, emails,
                           properties, mapping, token_nonce, token_hash, theme_id, locale, timezone)
    SELECT ${c.providedId}, ${c.name}, ${c.accessGroupId}, ${c.hierarchyLevelId}, ${c.parentId}, ${c.isDemo ? 1 : 0},
           ${sql.param(c.emails, customers.emails)}, ${sql.param(c.properties, customers.properties)}, ${sql.param(c.mapping, customers.mapping)}, ${c.tokenNonce}, ${c.tokenHash},
           ${c.themeId}, ${c.locale}, ${c.timezone}
     WHERE ${c.isDemo ? 1 : 0} = 1 OR ${paidLimit} = 0
        OR (SELECT count(*) FROM customers WHERE is_demo = 0) < ${paidLimit}
    ON CONFLICT (provided_id) DO NOTHING`);
}

/** Assigns tags, in order, to the customer holding `tokenHash` (only if this call created it). */
export function insertCustomerTags(db: Database, tokenHash: string, tagIds: number[]) {
  // Raw: json_each as a table gives each tag its position, with one bound parameter for the whole list.
  return db.run(sql`
    INSERT INTO customer_group_tags (customer_id, group_tag_id, position)
    SELECT c.id, j.value, j.key FROM customers c, json_each(${JSON.stringify(tagIds)}) j WHERE c.token_hash = ${tokenHash}`);
}

export function replaceCustomerTags(db: Database, customerId: number, tagIds: number[]) {
  return [
    db.delete(customerGroupTags).where(eq(customerGroupTags.customerId, customerId)),
    // Raw: as in insertCustomerTags (and an empty list inserts nothing, where values([]) throws).
    db.run(sql`
      INSERT INTO customer_group_tags (customer_id, group_tag_id, position)
      SELECT ${customerId}, j.value, j.key FROM json_each(${JSON.stringify(tagIds)}) j`),
  ] as const;
}

export type CustomerChanges = Partial<
  Pick<
    CustomerRow,
    "providedId" | "name" | "hierarchyLevelId" | "parentId" | "isDemo" | "properties" | "mapping" | "themeId" | "locale" | "timezone"
  >
> & {
  emails?: string[];
};

/** Sets the fields given (undefined = keep). */
export function updateCustomer(db: Database, customerId: number, changes: CustomerChanges) {
  return db
    .update(customers)
    .set({ ...changes, updatedAt: sqlNow })
    .where(eq(customers.id, customerId));
}

/** Deletes a childless customer; its tags (and later blueprints, end users) cascade. */
export function deleteChildlessCustomer(db: Database, tokenHash: string, accessGroupId: number) {
  const child = alias(customers, "child");
  return db
    .delete(customers)
    .where(
      and(
        visibleByTokenHash(tokenHash, accessGroupId),
        notExists(db.select({ one: sql`1` }).from(child).where(eq(child.parentId, customers.id))),
      ),
    )
    .returning({ id: customers.id });
}

export function customerWithChildCount(db: Database, tokenHash: string, accessGroupId: number) {
  const self = alias(customers, "self");
  return db
    .select({ id: self.id, children: db.$count(customers, eq(customers.parentId, self.id)) })
    .from(self)
    .where(and(eq(self.tokenHash, tokenHash), eq(self.accessGroupId, accessGroupId)));
}

/**
 * The viewers' own subscriptions (schedules with source 'embed') of the customer holding
 * `tokenHash`: made under that customer token, they end with it (refresh or delete), as its
 * embed tokens and share links do.
 */
export function deleteEmbedSubscriptions(db: Database, tokenHash: string, accessGroupId: number) {
  const holder = db.select({ id: customers.id }).from(customers).where(visibleByTokenHash(tokenHash, accessGroupId));
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.source, "embed"), inArray(reportSchedules.customerId, holder)))
    .returning({ id: reportSchedules.id });
}

export function replaceToken(db: Database, oldHash: string, accessGroupId: number, nonce: string, newHash: string) {
  return db
    .update(customers)
    .set({ tokenNonce: nonce, tokenHash: newHash, updatedAt: sqlNow })
    .where(visibleByTokenHash(oldHash, accessGroupId));
}

/** A visible customer's id and current token hash (what an embed token is minted against). */
export function visibleCustomerTokenHash(db: Database, providedId: string, accessGroupId: number) {
  return db
    .select({ id: customers.id, tokenHash: customers.tokenHash })
    .from(customers)
    .where(visibleByProvidedId(providedId, accessGroupId));
}

/** The id of the customer with this provided_id in this access group (what hangs off a customer checks first). */
export function visibleCustomerId(db: Database, providedId: string, accessGroupId: number) {
  return db.select({ id: customers.id }).from(customers).where(visibleByProvidedId(providedId, accessGroupId));
}
