import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { customers, endUsers } from "../db/schema";
import { sqlNow } from "../db/time";

export type EndUserRow = typeof endUsers.$inferSelect;

export function visibleCustomerById(db: Database, id: number, accessGroupId: number) {
  return db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.id, id), eq(customers.accessGroupId, accessGroupId)));
}

const byKey = (customerId: number, providedId: string) => and(eq(endUsers.customerId, customerId), eq(endUsers.providedId, providedId));

export function endUser(db: Database, customerId: number, providedId: string) {
  return db
    .select({ providedId: endUsers.providedId, email: endUsers.email, attributes: endUsers.attributes })
    .from(endUsers)
    .where(byKey(customerId, providedId));
}

/** Creates the end user unless it exists (a concurrent create wins quietly). */
export function insertEndUser(db: Database, u: Pick<EndUserRow, "customerId" | "providedId" | "email" | "attributes">) {
  return db
    .insert(endUsers)
    .values(u)
    .onConflictDoNothing({ target: [endUsers.customerId, endUsers.providedId] });
}

/** Replaces the fields given (null = keep). */
export function updateEndUser(
  db: Database,
  u: Pick<EndUserRow, "customerId" | "providedId"> & { email: string | null; attributes: EndUserRow["attributes"] | null },
) {
  return db
    .update(endUsers)
    .set({
      email: sql`coalesce(${u.email}, ${endUsers.email})`,
      attributes: sql`coalesce(${sql.param(u.attributes, endUsers.attributes)}, ${endUsers.attributes})`,
      updatedAt: sqlNow,
    })
    .where(byKey(u.customerId, u.providedId));
}
