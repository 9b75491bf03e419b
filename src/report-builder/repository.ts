import { and, desc, eq, inArray } from "drizzle-orm";
import { visibleByProvidedId } from "../customers/repository";
import type { Database } from "../db/client";
import { blueprints, customers, savedReports } from "../db/schema";
import { sqlNow } from "../db/time";

// Unexecuted queries of the report builder: services put them in one batch per request.

export type SavedReportRow = typeof savedReports.$inferSelect;

/** The blueprint, only as a blueprint of that customer. */
export function blueprintOfCustomer(db: Database, blueprintId: number, customerId: number) {
  return db
    .select({ id: blueprints.id, embedId: blueprints.embedId, name: blueprints.name, tables: blueprints.tables })
    .from(blueprints)
    .where(and(eq(blueprints.id, blueprintId), eq(blueprints.customerId, customerId)));
}

/** The blueprint with that embed id, whoever's it is (the builder token's claims say whose). */
export function blueprintByEmbedId(db: Database, embedId: string) {
  return db.select({ id: blueprints.id }).from(blueprints).where(eq(blueprints.embedId, embedId));
}

/** The blueprint, only when it belongs to the visible customer with that provided_id. */
export function blueprintOfProvidedId(db: Database, blueprintId: number, providedId: string, accessGroupId: number) {
  return db
    .select({ id: blueprints.id, embedId: blueprints.embedId, tables: blueprints.tables })
    .from(blueprints)
    .innerJoin(customers, eq(customers.id, blueprints.customerId))
    .where(and(eq(blueprints.id, blueprintId), visibleByProvidedId(providedId, accessGroupId)));
}

const ofBlueprint = (blueprintId: number, customerId: number) =>
  and(eq(savedReports.blueprintId, blueprintId), eq(savedReports.customerId, customerId));

export function blueprintReports(db: Database, blueprintId: number, customerId: number) {
  return db
    .select()
    .from(savedReports)
    .where(ofBlueprint(blueprintId, customerId))
    .orderBy(desc(savedReports.updatedAt), desc(savedReports.createdAt));
}

export function reportOfBlueprint(db: Database, id: string, blueprintId: number, customerId: number) {
  return db
    .select()
    .from(savedReports)
    .where(and(eq(savedReports.id, id), ofBlueprint(blueprintId, customerId)));
}

/** A report of that customer with its blueprint's tables. */
export function reportOfCustomer(db: Database, id: string, customerId: number) {
  return db
    .select({ report: savedReports, tables: blueprints.tables })
    .from(savedReports)
    .innerJoin(blueprints, eq(blueprints.id, savedReports.blueprintId))
    .where(and(eq(savedReports.id, id), eq(savedReports.customerId, customerId)));
}

export function insertReport(
  db: Database,
  row: Pick<SavedReportRow, "id" | "blueprintId" | "customerId" | "name" | "query" | "chart" | "lockedFilters" | "createdBy">,
) {
  return db.insert(savedReports).values(row).returning();
}

export function updateReport(
  db: Database,
  id: string,
  blueprintId: number,
  customerId: number,
  fields: Partial<Pick<SavedReportRow, "name" | "query" | "chart">>,
) {
  return db
    .update(savedReports)
    .set({ ...fields, updatedAt: sqlNow })
    .where(and(eq(savedReports.id, id), ofBlueprint(blueprintId, customerId)))
    .returning();
}

export function deleteReport(db: Database, id: string, blueprintId: number, customerId: number) {
  return db
    .delete(savedReports)
    .where(and(eq(savedReports.id, id), ofBlueprint(blueprintId, customerId)))
    .returning({ id: savedReports.id });
}

// ---- the vendor's view: through a visible customer ---------------------------------------------

/**
 * The saved report, only as a report of the customer with that provided_id in the access
 * group (delivery checks a `report_id` with it, inside the batch that inserts the job).
 */
export function reportOfVisibleCustomer(db: Database, id: string, providedId: string, accessGroupId: number) {
  return db
    .select({ id: savedReports.id, name: savedReports.name, customerId: savedReports.customerId })
    .from(savedReports)
    .innerJoin(customers, eq(customers.id, savedReports.customerId))
    .where(and(eq(savedReports.id, id), visibleByProvidedId(providedId, accessGroupId)));
}

export function visibleCustomer(db: Database, providedId: string, accessGroupId: number) {
  return db.select({ id: customers.id }).from(customers).where(visibleByProvidedId(providedId, accessGroupId));
}

export function customerReports(db: Database, providedId: string, accessGroupId: number) {
  return db
    .select({ report: savedReports })
    .from(savedReports)
    .innerJoin(customers, eq(customers.id, savedReports.customerId))
    .where(visibleByProvidedId(providedId, accessGroupId))
    .orderBy(desc(savedReports.updatedAt), desc(savedReports.createdAt));
}

/** Deletes the report when its customer is in the access group; answers the id deleted. */
export function deleteVisibleReport(db: Database, id: string, accessGroupId: number) {
  return db
    .delete(savedReports)
    .where(
      and(
        eq(savedReports.id, id),
        inArray(savedReports.customerId, db.select({ id: customers.id }).from(customers).where(eq(customers.accessGroupId, accessGroupId))),
      ),
    )
    .returning({ id: savedReports.id });
}
