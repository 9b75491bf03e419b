import { sql } from "drizzle-orm";
import type { Database } from "../db/client";

export function webhookSecret(db: Database, accessGroupId: number) {
  return db.all<{ secret: string }>(sql`SELECT secret FROM webhook_secrets WHERE access_group_id = ${accessGroupId}`);
}

/** Creates or replaces the access group's secret (the old one stops working at once). */
export function putWebhookSecret(db: Database, accessGroupName: string, secret: string) {
  return db.all<{ created_at: string }>(sql`
    INSERT INTO webhook_secrets (access_group_id, secret)
    SELECT id, ${secret} FROM access_groups WHERE name_key = ${accessGroupName.toLowerCase()}
    ON CONFLICT (access_group_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
    RETURNING created_at`);
}
