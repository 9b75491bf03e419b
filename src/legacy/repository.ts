import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { sqlNow } from "../db/time";

export interface EndUserRow {
  provided_id: string;
  email: string;
  attributes: string;
}

export function visibleCustomerById(db: Database, id: number, accessGroupId: number) {
  return db.all<{ id: number }>(sql`SELECT id FROM customers WHERE id = ${id} AND access_group_id = ${accessGroupId}`);
}

export function endUser(db: Database, customerId: number, providedId: string) {
  return db.all<EndUserRow>(
    sql`SELECT provided_id, email, attributes FROM end_users WHERE customer_id = ${customerId} AND provided_id = ${providedId}`,
  );
}

/** Creates the end user unless it exists (a concurrent create wins quietly). */
export function insertEndUser(db: Database, u: { customerId: number; providedId: string; email: string; attributes: string }) {
  return db.run(sql`
    INSERT INTO end_users (customer_id, provided_id, email, attributes)
    VALUES (${u.customerId}, ${u.providedId}, ${u.email}, ${u.attributes})
    ON CONFLICT (customer_id, provided_id) DO NOTHING`);
}

/** Replaces the fields given (null = keep). */
export function updateEndUser(db: Database, u: { customerId: number; providedId: string; email: string | null; attributes: string | null }) {
  return db.run(sql`
    UPDATE end_users SET email = coalesce(${u.email}, email), attributes = coalesce(${u.attributes}, attributes),
                         updated_at = ${sqlNow}
     WHERE customer_id = ${u.customerId} AND provided_id = ${u.providedId}`);
}
