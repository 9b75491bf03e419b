import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { parsedRows } from "../db/rows";
import { webhookSecrets } from "../db/schema";

/** Whether the access group has a secret, without reading it (a batch statement, or a condition inside `exists`). */
export function secretExists(db: Database, accessGroupId: number) {
  return db
    .select({ accessGroupId: webhookSecrets.accessGroupId })
    .from(webhookSecrets)
    .where(eq(webhookSecrets.accessGroupId, accessGroupId));
}

export function webhookSecret(db: Database, accessGroupId: number) {
  return db.select({ secret: webhookSecrets.secret }).from(webhookSecrets).where(eq(webhookSecrets.accessGroupId, accessGroupId));
}

/** Creates or replaces the access group's secret (the old one stops working at once). */
export function putWebhookSecret(db: Database, accessGroupName: string, secret: string) {
  // Raw: an INSERT … SELECT (the access group by name), and drizzle's insert-select must list every column of the table, defaults included.
  return parsedRows(
    db,
    sql`
    INSERT INTO webhook_secrets (access_group_id, secret)
    SELECT id, ${secret} FROM access_groups WHERE name_key = ${accessGroupName.toLowerCase()}
    ON CONFLICT (access_group_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
    RETURNING created_at AS createdAt`,
    z.object({ createdAt: z.string() }),
  );
}
