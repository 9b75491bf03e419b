import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { sqlNow } from "../db/time";

/** Unexecuted queries for blueprints, reachable only through a visible customer. */

/** Customers are the customers module's; blueprints only ask for the visible one's id. */
export { visibleCustomerId } from "../customers/repository";

/** Schemas are the admin plane's; one lookup serves every capability that names them. */
export { existingSchemas } from "../admin/repository";

export function insertBlueprint(db: Database, b: { embedId: string; name: string; customerId: number; tables: string }) {
  return db.all<{ id: number }>(sql`
    INSERT INTO blueprints (embed_id, name, customer_id, tables) VALUES (${b.embedId}, ${b.name}, ${b.customerId}, ${b.tables})
    RETURNING id`);
}

export interface BlueprintRow {
  id: number;
  embed_id: string;
  name: string;
  customer_provided_id: string;
  tables: string;
}

export function visibleBlueprint(db: Database, id: number, accessGroupId: number) {
  return db.all<BlueprintRow>(sql`
    SELECT b.id, b.embed_id, b.name, c.provided_id AS customer_provided_id, b.tables
      FROM blueprints b JOIN customers c ON c.id = b.customer_id
     WHERE b.id = ${id} AND c.access_group_id = ${accessGroupId}`);
}

export function replaceTables(db: Database, id: number, tables: string) {
  return db.run(sql`UPDATE blueprints SET tables = ${tables}, updated_at = ${sqlNow} WHERE id = ${id}`);
}

export function customerBlueprints(db: Database, providedId: string, accessGroupId: number) {
  return db.all<{ id: number; embed_id: string; name: string }>(sql`
    SELECT b.id, b.embed_id, b.name FROM blueprints b JOIN customers c ON c.id = b.customer_id
     WHERE c.provided_id = ${providedId} AND c.access_group_id = ${accessGroupId}
     ORDER BY b.id`);
}
