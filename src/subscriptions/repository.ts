import { and, count, eq, notExists, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { customers, reportSchedules } from "../db/schema";
import { allOf } from "../db/conditions";

/** A viewer's own subscriptions: schedules made from the embed page for this customer, dashboard and address. */
export function ownedBy(customerId: number, embedId: string, email: string) {
  return allOf(
    eq(reportSchedules.customerId, customerId),
    eq(reportSchedules.subscriberEmail, email),
    eq(reportSchedules.dashboardEmbedId, embedId),
    eq(reportSchedules.source, "embed"),
    eq(reportSchedules.kind, "schedule"),
  );
}

/**
 * Takes back a subscription just inserted (same batch, so the same transaction) when it made
 * the viewer's count exceed `max`: of two racing subscribes at the limit, one stays. Answers
 * the id when it was taken back.
 */
export function dropIfOverLimit(db: Database, id: string, customerId: number, embedId: string, email: string, max: number) {
  const owned = db
    .select({ n: count() })
    .from(reportSchedules)
    .where(ownedBy(customerId, embedId, email));
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.id, id), sql`(${owned}) > ${max}`))
    .returning({ id: reportSchedules.id });
}

/**
 * Takes back a subscription just inserted (same batch) when its customer no longer holds the
 * customer token its embed token was checked against: a refresh between the check and the
 * insert must not leave a subscription of the old token behind.
 */
export function dropIfCustomerTokenChanged(db: Database, id: string, customerId: number, customerTokenHash: string) {
  const holder = db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.id, customerId), eq(customers.tokenHash, customerTokenHash)));
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.id, id), notExists(holder)))
    .returning({ id: reportSchedules.id });
}

export function deleteSubscription(db: Database, id: string, customerId: number, embedId: string, email: string) {
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.id, id), ownedBy(customerId, embedId, email)))
    .returning({ id: reportSchedules.id });
}

/** The token's customer: its access group (where the schedule lives) and token hash (the fingerprint check). */
export function customerOfToken(db: Database, customerId: number) {
  return db
    .select({ id: customers.id, accessGroupId: customers.accessGroupId, tokenHash: customers.tokenHash })
    .from(customers)
    .where(eq(customers.id, customerId));
}
