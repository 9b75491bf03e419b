import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { visibleByProvidedId } from "../customers/repository";
import { blueprints, customers } from "../db/schema";
import { sqlNow } from "../db/time";
import type { StoredTable } from "./schemas";

/** Unexecuted queries for blueprints, reachable only through a visible customer. */

export type BlueprintRow = typeof blueprints.$inferSelect;

export function insertBlueprint(db: Database, b: Pick<BlueprintRow, "embedId" | "name" | "customerId" | "tables">) {
  return db.insert(blueprints).values(b).returning({ id: blueprints.id });
}

export function visibleBlueprint(db: Database, id: number, accessGroupId: number) {
  return db
    .select({
      id: blueprints.id,
      embedId: blueprints.embedId,
      name: blueprints.name,
      customerProvidedId: customers.providedId,
      tables: blueprints.tables,
    })
    .from(blueprints)
    .innerJoin(customers, eq(customers.id, blueprints.customerId))
    .where(and(eq(blueprints.id, id), eq(customers.accessGroupId, accessGroupId)));
}

export function replaceTables(db: Database, id: number, tables: StoredTable[]) {
  return db.update(blueprints).set({ tables, updatedAt: sqlNow }).where(eq(blueprints.id, id));
}

export function customerBlueprints(db: Database, providedId: string, accessGroupId: number) {
  return db
    .select({ id: blueprints.id, embedId: blueprints.embedId, name: blueprints.name })
    .from(blueprints)
    .innerJoin(customers, eq(customers.id, blueprints.customerId))
    .where(visibleByProvidedId(providedId, accessGroupId))
    .orderBy(asc(blueprints.id));
}
