import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import type { JobKind, JobRow } from "./job-state";

export type { JobRow } from "./job-state";

export function insertJob(
  db: Database,
  job: { id: string; kind: JobKind; customerId: number; accessGroupId: number; embedId: string; request: string },
) {
  return db.run(sql`
    INSERT INTO jobs (id, kind, customer_id, access_group_id, dashboard_embed_id, request)
    VALUES (${job.id}, ${job.kind}, ${job.customerId}, ${job.accessGroupId}, ${job.embedId}, ${job.request})`);
}

export function jobById(db: Database, id: string) {
  return db.all<JobRow>(sql`SELECT * FROM jobs WHERE id = ${id}`);
}

export function visibleJob(db: Database, id: string, accessGroupId: number) {
  return db.all<JobRow>(sql`SELECT * FROM jobs WHERE id = ${id} AND access_group_id = ${accessGroupId}`);
}

export function customerName(db: Database, customerId: number) {
  return db.all<{ name: string }>(sql`SELECT name FROM customers WHERE id = ${customerId}`);
}

/** The end user of this customer with this address, for the report's header and footer. */
export function endUserByEmail(db: Database, customerId: number, email: string) {
  return db.all<{ attributes: string }>(sql`
    SELECT attributes FROM end_users WHERE customer_id = ${customerId} AND lower(email) = lower(${email}) ORDER BY id LIMIT 1`);
}
