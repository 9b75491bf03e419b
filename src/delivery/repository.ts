import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { customers, endUsers, jobs } from "../db/schema";
import type { JobRow } from "./job-state";

export type { JobRow } from "./job-state";

export function insertJob(db: Database, job: Pick<JobRow, "id" | "kind" | "customerId" | "accessGroupId" | "dashboardEmbedId" | "request">) {
  return db.insert(jobs).values(job);
}

export function jobById(db: Database, id: string) {
  return db.select().from(jobs).where(eq(jobs.id, id));
}

export function visibleJob(db: Database, id: string, accessGroupId: number) {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.accessGroupId, accessGroupId)));
}

export function customerName(db: Database, customerId: number) {
  return db.select({ name: customers.name }).from(customers).where(eq(customers.id, customerId));
}

/** The end user of this customer with this address, for the report's header and footer. */
export function endUserByEmail(db: Database, customerId: number, email: string) {
  return db
    .select({ attributes: endUsers.attributes })
    .from(endUsers)
    // SQLite's lower(), as the address was always compared (JavaScript's lower-casing differs beyond ASCII).
    .where(and(eq(endUsers.customerId, customerId), eq(sql`lower(${endUsers.email})`, sql`lower(${email})`)))
    .orderBy(asc(endUsers.id))
    .limit(1);
}
