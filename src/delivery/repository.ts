import { sql } from "drizzle-orm";
import type { Database } from "../db/client";

export interface JobRow {
  id: string;
  kind: "screenshot" | "report";
  status: "queued" | "rendering" | "sending" | "done" | "failed";
  attempts: number;
  error: string | null;
  customer_id: number;
  access_group_id: number;
  dashboard_embed_id: string;
  request: string;
  file_key: string | null;
  content_type: string | null;
  email_claimed_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

export function insertJob(
  db: Database,
  job: { id: string; kind: "screenshot" | "report"; customerId: number; accessGroupId: number; embedId: string; request: string },
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

const now = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** Starts an attempt unless the job is already finished (a redelivered message). */
export function startAttempt(db: Database, id: string, attempt: number) {
  return db.all<JobRow>(sql`
    UPDATE jobs SET status = 'rendering', attempts = max(attempts, ${attempt}), error = NULL, updated_at = ${now}
     WHERE id = ${id} AND status NOT IN ('done', 'failed')
    RETURNING *`);
}

export function setStatus(db: Database, id: string, status: JobRow["status"], error: string | null = null) {
  return db.run(sql`UPDATE jobs SET status = ${status}, error = ${error}, updated_at = ${now} WHERE id = ${id}`);
}

/** Records the rendered file; a job without e-mail is done with it (one statement, one round trip). */
export function setFile(db: Database, id: string, fileKey: string, contentType: string, done: boolean) {
  return db.run(sql`
    UPDATE jobs SET file_key = ${fileKey}, content_type = ${contentType},
                    status = CASE WHEN ${done ? 1 : 0} = 1 THEN 'done' ELSE status END, updated_at = ${now}
     WHERE id = ${id}`);
}

/** Claims the right to send the e-mail; only one delivery of a message can win it. */
export function claimEmail(db: Database, id: string) {
  return db.all<{ id: string }>(sql`
    UPDATE jobs SET email_claimed_at = ${now}, status = 'sending', updated_at = ${now}
     WHERE id = ${id} AND email_claimed_at IS NULL RETURNING id`);
}

export function releaseEmail(db: Database, id: string) {
  return db.run(sql`UPDATE jobs SET email_claimed_at = NULL WHERE id = ${id} AND sent_at IS NULL`);
}

export function markSent(db: Database, id: string) {
  return db.run(sql`UPDATE jobs SET sent_at = ${now}, status = 'done', error = NULL, updated_at = ${now} WHERE id = ${id}`);
}

export function customerName(db: Database, customerId: number) {
  return db.all<{ name: string }>(sql`SELECT name FROM customers WHERE id = ${customerId}`);
}

/** The end user of this customer with this address, for the report's header and footer. */
export function endUserByEmail(db: Database, customerId: number, email: string) {
  return db.all<{ attributes: string }>(sql`
    SELECT attributes FROM end_users WHERE customer_id = ${customerId} AND lower(email) = lower(${email}) ORDER BY id LIMIT 1`);
}
