import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { jsonList } from "../db/json-list";
import { sqlNow } from "../db/time";
import { accessGroups, apiTokens, customers, dataSources, hierarchyLevels, schemas } from "../db/schema";
import type { StoredConnection } from "../data/sources/clickhouse-connection";
import type { DataSourceKind } from "../data/sources/kinds";

export const nameKey = (name: string) => name.toLowerCase();

// ---- access groups ----------------------------------------------------------------------
export function insertAccessGroup(db: Database, name: string) {
  return db
    .insert(accessGroups)
    .values({ name, nameKey: nameKey(name) })
    .onConflictDoNothing({ target: accessGroups.nameKey })
    .returning({ id: accessGroups.id, name: accessGroups.name });
}

export function listAccessGroups(db: Database) {
  return db.select({ name: accessGroups.name }).from(accessGroups).orderBy(asc(accessGroups.nameKey));
}

/** The access groups of these names (case-insensitive), for naming data source owners. */
export function accessGroupsByNames(db: Database, names: string[]) {
  return db
    .select({ id: accessGroups.id, name: accessGroups.name, nameKey: accessGroups.nameKey })
    .from(accessGroups)
    .where(inArray(accessGroups.nameKey, jsonList(names.map(nameKey))));
}

/** Every access group's id and name (to name the groups of data sources in answers). */
export function accessGroupNames(db: Database) {
  return db.select({ id: accessGroups.id, name: accessGroups.name }).from(accessGroups).orderBy(asc(accessGroups.nameKey));
}

export function accessGroupByName(db: Database, name: string) {
  return db
    .select({ id: accessGroups.id, name: accessGroups.name })
    .from(accessGroups)
    .where(eq(accessGroups.nameKey, nameKey(name)));
}

// ---- API tokens -------------------------------------------------------------------------
export function insertApiToken(
  db: Database,
  token: { id: string; name: string; accessGroupId: number; permission: "read" | "write"; tokenHash: string },
) {
  return db.insert(apiTokens).values(token);
}

export function apiTokenById(db: Database, id: string) {
  return db
    .select({ id: apiTokens.id, tokenHash: apiTokens.tokenHash, revokedAt: apiTokens.revokedAt })
    .from(apiTokens)
    .where(eq(apiTokens.id, id));
}

export function revokeApiToken(db: Database, id: string) {
  return db
    .update(apiTokens)
    .set({ revokedAt: sqlNow })
    .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
}

// ---- hierarchy levels -------------------------------------------------------------------
export function listLevels(db: Database) {
  return db
    .select({ id: hierarchyLevels.id, name: hierarchyLevels.name, position: hierarchyLevels.position })
    .from(hierarchyLevels)
    .orderBy(asc(hierarchyLevels.position));
}

/** How many customers sit at each level. */
export function levelUsage(db: Database) {
  return db.select({ levelId: customers.hierarchyLevelId, customers: count() }).from(customers).groupBy(customers.hierarchyLevelId);
}

/** Every (child level, parent level) combination that exists among customers. */
export function parentLevelPairs(db: Database) {
  const parent = alias(customers, "parent");
  return db
    .selectDistinct({
      childLevelId: customers.hierarchyLevelId,
      // Named apart: batch rows are keyed by column name, and two `hierarchy_level_id` would collapse.
      parentLevelId: sql<number>`${parent.hierarchyLevelId}`.as("parent_level_id"),
    })
    .from(customers)
    .innerJoin(parent, eq(parent.id, customers.parentId));
}

export function deleteLevel(db: Database, id: number) {
  return db.delete(hierarchyLevels).where(eq(hierarchyLevels.id, id));
}

export function moveLevel(db: Database, id: number, position: number) {
  return db.update(hierarchyLevels).set({ position }).where(eq(hierarchyLevels.id, id));
}

export function insertLevel(db: Database, name: string, position: number) {
  return db.insert(hierarchyLevels).values({ name, position });
}

// ---- schemas and data sources -------------------------------------------------------------
export function insertSchema(db: Database, name: string) {
  return db.insert(schemas).values({ name }).returning({ id: schemas.id, name: schemas.name });
}

/** Which of these schema ids exist. */
export function existingSchemas(db: Database, ids: number[]) {
  return db
    .select({ id: schemas.id })
    .from(schemas)
    .where(inArray(schemas.id, jsonList(ids)));
}

export function listSchemas(db: Database) {
  return db.select({ id: schemas.id, name: schemas.name }).from(schemas).orderBy(asc(schemas.id));
}

const dataSourceColumns = {
  id: dataSources.id,
  provided_id: dataSources.providedId,
  name: dataSources.name,
  binding: dataSources.binding,
  kind: dataSources.kind,
  namespace: dataSources.namespace,
  accessGroupIds: dataSources.accessGroupIds,
  connection: dataSources.connection,
};

export function insertDataSource(
  db: Database,
  source: {
    name: string;
    binding: string;
    kind: DataSourceKind;
    namespace: string | null;
    providedId: string | null;
    accessGroupIds: number[] | null;
    connection: StoredConnection | null;
  },
) {
  return db.insert(dataSources).values(source).onConflictDoNothing({ target: dataSources.providedId }).returning(dataSourceColumns);
}

/** Changes what is given (name, namespace, access groups, ClickHouse connection) of one data source. */
export function updateDataSource(
  db: Database,
  id: number,
  changes: { name?: string; namespace?: string | null; accessGroupIds?: number[] | null; connection?: StoredConnection },
) {
  return db.update(dataSources).set(changes).where(eq(dataSources.id, id)).returning(dataSourceColumns);
}

export function listDataSources(db: Database) {
  return db.select(dataSourceColumns).from(dataSources).orderBy(asc(dataSources.id));
}
