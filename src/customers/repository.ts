import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { sqlNow } from "../db/time";
import { customers } from "../db/schema";

/**
 * Data access for customers. Every function returns an unexecuted query so that services
 * can put several of them in one `db.batch` (one D1 round trip).
 */

/** One customer row with what its view needs; `depth` 0 is the customer, 1 its parent, … */
export interface CustomerRow {
  depth: number;
  id: number;
  provided_id: string;
  name: string;
  is_demo: number;
  emails: string;
  properties: string | null;
  mapping: string | null;
  token_nonce: string;
  token_hash: string;
  access_group_id: number | null;
  parent_id: number | null;
  hierarchy_level_id: number;
  hierarchy_level: string;
  level_position: number;
  access_group: string | null;
  group_tags: string;
  in_page?: number;
}

const viewColumns = sql.raw(`c.id, c.provided_id, c.name, c.is_demo, c.emails, c.properties, c.mapping, c.token_nonce,
  c.token_hash, c.access_group_id, c.parent_id, c.hierarchy_level_id, l.name AS hierarchy_level, l.position AS level_position,
  g.name AS access_group,
  (SELECT json_group_array(name) FROM (SELECT t.name FROM customer_group_tags ct JOIN group_tags t ON t.id = ct.group_tag_id
     WHERE ct.customer_id = c.id ORDER BY ct.position)) AS group_tags`);

const viewJoins = sql.raw(
  `JOIN hierarchy_levels l ON l.id = c.hierarchy_level_id LEFT JOIN access_groups g ON g.id = c.access_group_id`,
);

/** The customer matched by `where` (on table alias `c0`) and all its ancestors, nearest first. */
export function customerChain(db: Database, where: SQL) {
  return db.all<CustomerRow>(sql`
    WITH RECURSIVE chain(id, depth) AS (
      SELECT c0.id, 0 FROM customers c0 WHERE ${where}
      UNION ALL
      SELECT p.parent_id, chain.depth + 1 FROM customers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
    )
    SELECT chain.depth AS depth, ${viewColumns}
      FROM chain JOIN customers c ON c.id = chain.id ${viewJoins}
     ORDER BY chain.depth`);
}

export const visibleByProvidedId = (providedId: string, accessGroupId: number) =>
  sql`c0.provided_id = ${providedId} AND c0.access_group_id = ${accessGroupId}`;
export const visibleByTokenHash = (tokenHash: string, accessGroupId: number) =>
  sql`c0.token_hash = ${tokenHash} AND c0.access_group_id = ${accessGroupId}`;
export const byId = (id: number) => sql`c0.id = ${id}`;
/** Any customer by its token's hash, in any access group (the token itself authorises). */
export const byTokenHash = (tokenHash: string) => sql`c0.token_hash = ${tokenHash}`;

export interface ListFilter {
  accessGroupId: number;
  parentProvidedId?: string;
  hierarchyLevelName?: string;
}

function listWhere(filter: ListFilter): SQL {
  const parts = [sql`c0.access_group_id = ${filter.accessGroupId}`];
  if (filter.parentProvidedId !== undefined) {
    parts.push(sql`c0.parent_id = (SELECT id FROM customers WHERE provided_id = ${filter.parentProvidedId})`);
  }
  if (filter.hierarchyLevelName !== undefined) {
    parts.push(sql`c0.hierarchy_level_id = (SELECT id FROM hierarchy_levels WHERE name = ${filter.hierarchyLevelName})`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * One page of customers (ordered by creation) plus every ancestor any of them needs for
 * its computed fields; rows with `in_page = 1` are the page itself.
 */
export function customerPage(db: Database, filter: ListFilter, page?: { limit: number; offset: number }) {
  const limit = page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``;
  return db.all<CustomerRow>(sql`
    WITH RECURSIVE page(id) AS (
      SELECT c0.id FROM customers c0 WHERE ${listWhere(filter)} ORDER BY c0.id ${limit}
    ),
    chain(id) AS (
      SELECT id FROM page
      UNION
      SELECT p.parent_id FROM customers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
    )
    SELECT 0 AS depth, (c.id IN (SELECT id FROM page)) AS in_page, ${viewColumns}
      FROM chain JOIN customers c ON c.id = chain.id ${viewJoins}
     ORDER BY c.id`);
}

export function customerCount(db: Database, filter: ListFilter) {
  return db.all<{ total: number }>(sql`SELECT count(*) AS total FROM customers c0 WHERE ${listWhere(filter)}`);
}

// ---- what create and update look up before writing -------------------------------------

/** Any customer with this provided_id, in any access group. */
export function customerOwner(db: Database, providedId: string) {
  return db.all<{ id: number; access_group_id: number | null }>(
    sql`SELECT id, access_group_id FROM customers WHERE provided_id = ${providedId}`,
  );
}

/** A prospective parent, looked up across the whole workspace. */
export function parentCandidate(db: Database, providedId: string) {
  return db.all<{ id: number; access_group_id: number | null; level_position: number }>(sql`
    SELECT c.id, c.access_group_id, l.position AS level_position
      FROM customers c JOIN hierarchy_levels l ON l.id = c.hierarchy_level_id
     WHERE c.provided_id = ${providedId}`);
}

/** The highest (smallest) level position among the children of a customer. */
export function childrenSummary(db: Database, customerWhere: SQL) {
  return db.all<{ children: number; top_child_position: number | null }>(sql`
    SELECT count(*) AS children, min(l.position) AS top_child_position
      FROM customers ch JOIN hierarchy_levels l ON l.id = ch.hierarchy_level_id
     WHERE ch.parent_id = (SELECT c0.id FROM customers c0 WHERE ${customerWhere})`);
}

/** A level by name, or the root level when no name is given. */
export function hierarchyLevel(db: Database, name: string | undefined) {
  return name === undefined
    ? db.all<{ id: number; name: string; position: number }>(sql`SELECT id, name, position FROM hierarchy_levels ORDER BY position LIMIT 1`)
    : db.all<{ id: number; name: string; position: number }>(sql`SELECT id, name, position FROM hierarchy_levels WHERE name = ${name}`);
}

export function groupTagsByKey(db: Database, keys: string[]) {
  return db.all<{ id: number; name: string; name_key: string }>(
    sql`SELECT id, name, name_key FROM group_tags WHERE name_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`,
  );
}

export function schemasById(db: Database, ids: string[]) {
  return db.all<{ id: number }>(
    sql`SELECT id FROM schemas WHERE CAST(id AS TEXT) IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  );
}

/** Data sources named by numeric id (as text) or by provided_id. */
export function dataSourcesByReference(db: Database, references: string[]) {
  const list = JSON.stringify(references);
  return db.all<{ id: number; provided_id: string | null }>(sql`
    SELECT id, provided_id FROM data_sources
     WHERE CAST(id AS TEXT) IN (SELECT value FROM json_each(${list}))
        OR provided_id IN (SELECT value FROM json_each(${list}))`);
}

export function paidCustomerCount(db: Database) {
  return db.all<{ total: number }>(sql`SELECT count(*) AS total FROM customers WHERE is_demo = 0`);
}

// ---- writes ---------------------------------------------------------------------------

export interface NewCustomer {
  providedId: string;
  name: string;
  accessGroupId: number;
  hierarchyLevelId: number;
  parentId: number | null;
  isDemo: boolean;
  emails: string[];
  properties: string | null;
  mapping: string | null;
  tokenNonce: string;
  tokenHash: string;
}

/**
 * Inserts unless the provided_id exists (a concurrent create wins quietly) or the
 * paid-customer limit is reached; both checks happen inside the statement, so parallel
 * creates cannot overshoot the limit. `paidLimit` 0 means unlimited.
 */
export function insertCustomer(db: Database, c: NewCustomer, paidLimit: number) {
  return db.run(sql`
    INSERT INTO customers (provided_id, name, access_group_id, hierarchy_level_id, parent_id, is_demo, emails,
                           properties, mapping, token_nonce, token_hash)
    SELECT ${c.providedId}, ${c.name}, ${c.accessGroupId}, ${c.hierarchyLevelId}, ${c.parentId}, ${c.isDemo ? 1 : 0},
           ${JSON.stringify(c.emails)}, ${c.properties}, ${c.mapping}, ${c.tokenNonce}, ${c.tokenHash}
     WHERE ${c.isDemo ? 1 : 0} = 1 OR ${paidLimit} = 0
        OR (SELECT count(*) FROM customers WHERE is_demo = 0) < ${paidLimit}
    ON CONFLICT (provided_id) DO NOTHING`);
}

/** Assigns tags, in order, to the customer holding `tokenHash` (only if this call created it). */
export function insertCustomerTags(db: Database, tokenHash: string, tagIds: number[]) {
  return db.run(sql`
    INSERT INTO customer_group_tags (customer_id, group_tag_id, position)
    SELECT c.id, j.value, j.key FROM customers c, json_each(${JSON.stringify(tagIds)}) j WHERE c.token_hash = ${tokenHash}`);
}

export function replaceCustomerTags(db: Database, customerId: number, tagIds: number[]) {
  return [
    db.run(sql`DELETE FROM customer_group_tags WHERE customer_id = ${customerId}`),
    db.run(sql`
      INSERT INTO customer_group_tags (customer_id, group_tag_id, position)
      SELECT ${customerId}, j.value, j.key FROM json_each(${JSON.stringify(tagIds)}) j`),
  ] as const;
}

export interface CustomerChanges {
  providedId?: string;
  name?: string;
  hierarchyLevelId?: number;
  parentId?: number | null;
  isDemo?: boolean;
  emails?: string[];
  properties?: string | null;
  mapping?: string | null;
}

export function updateCustomer(db: Database, customerId: number, changes: CustomerChanges) {
  const sets: SQL[] = [sql`updated_at = ${sqlNow}`];
  if (changes.providedId !== undefined) sets.push(sql`provided_id = ${changes.providedId}`);
  if (changes.name !== undefined) sets.push(sql`name = ${changes.name}`);
  if (changes.hierarchyLevelId !== undefined) sets.push(sql`hierarchy_level_id = ${changes.hierarchyLevelId}`);
  if (changes.parentId !== undefined) sets.push(sql`parent_id = ${changes.parentId}`);
  if (changes.isDemo !== undefined) sets.push(sql`is_demo = ${changes.isDemo ? 1 : 0}`);
  if (changes.emails !== undefined) sets.push(sql`emails = ${JSON.stringify(changes.emails)}`);
  if (changes.properties !== undefined) sets.push(sql`properties = ${changes.properties}`);
  if (changes.mapping !== undefined) sets.push(sql`mapping = ${changes.mapping}`);
  return db.run(sql`UPDATE customers SET ${sql.join(sets, sql`, `)} WHERE id = ${customerId}`);
}

/** Deletes a childless customer; its tags (and later blueprints, end users) cascade. */
export function deleteChildlessCustomer(db: Database, tokenHash: string, accessGroupId: number) {
  return db.all<{ id: number }>(sql`
    DELETE FROM customers
     WHERE token_hash = ${tokenHash} AND access_group_id = ${accessGroupId}
       AND NOT EXISTS (SELECT 1 FROM customers ch WHERE ch.parent_id = customers.id)
    RETURNING id`);
}

export function customerWithChildCount(db: Database, tokenHash: string, accessGroupId: number) {
  return db.all<{ id: number; children: number }>(sql`
    SELECT c.id, (SELECT count(*) FROM customers ch WHERE ch.parent_id = c.id) AS children
      FROM customers c WHERE c.token_hash = ${tokenHash} AND c.access_group_id = ${accessGroupId}`);
}

export function replaceToken(db: Database, oldHash: string, accessGroupId: number, nonce: string, newHash: string) {
  return db.run(sql`
    UPDATE customers SET token_nonce = ${nonce}, token_hash = ${newHash}, updated_at = ${sqlNow}
     WHERE token_hash = ${oldHash} AND access_group_id = ${accessGroupId}`);
}

/** A visible customer's id and current token hash (what an embed token is minted against). */
export function customerTokenKey(db: Database, providedId: string, accessGroupId: number) {
  return db
    .select({ id: customers.id, tokenHash: customers.tokenHash })
    .from(customers)
    .where(and(eq(customers.providedId, providedId), eq(customers.accessGroupId, accessGroupId)));
}

/** The id of the customer with this provided_id in this access group (what hangs off a customer checks first). */
export function visibleCustomerId(db: Database, providedId: string, accessGroupId: number) {
  return db.all<{ id: number }>(sql`SELECT id FROM customers WHERE provided_id = ${providedId} AND access_group_id = ${accessGroupId}`);
}
