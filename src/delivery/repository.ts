import { and, asc, eq, gt, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { parsedRows } from "../db/rows";
import { sqlNow, sqlSecondsFromNow } from "../db/time";
import { customers, endUsers, jobs, savedReports } from "../db/schema";
import type { JobRow } from "./job-state";
import { targetColumns, type DeliveryTarget } from "./target";

export type { JobRow } from "./job-state";

/**
 * Inserts the job for the customer `customerId` selects, only when that customer exists and
 * `condition` holds; answers the job's id when it was inserted. The caller's checks and the
 * insert can so share one batch (one D1 round trip) and a refused request inserts nothing.
 * The target is stored in its two columns (target.ts); a job row read back gives it with storedTarget.
 */
export function insertJobWhen(
  db: Database,
  job: Pick<JobRow, "id" | "kind" | "accessGroupId" | "request"> & { target: DeliveryTarget; born: boolean; download?: DownloadLink },
  customerId: SQLWrapper,
  condition: SQL,
) {
  // A job someone waits for is born claimed by its first attempt, which the same call runs.
  const status = job.born ? "rendering" : "queued";
  const attempts = job.born ? 1 : 0;
  const { dashboardEmbedId, reportId } = targetColumns(job.target);
  const expiresAt = job.download ? sqlSecondsFromNow(job.download.ttlSeconds) : sql`NULL`;
  // Raw: an INSERT … SELECT, and drizzle's insert-select must list every column of the table, defaults included.
  return parsedRows(
    db,
    sql`
    INSERT INTO jobs (id, kind, status, attempts, customer_id, access_group_id, dashboard_embed_id, report_id, request,
                      download_token_hash, download_expires_at)
    SELECT ${job.id}, ${job.kind}, ${status}, ${attempts}, (${customerId}), ${job.accessGroupId}, ${dashboardEmbedId}, ${reportId},
           ${sql.param(job.request, jobs.request)}, ${job.download?.tokenHash ?? null}, ${expiresAt}
     WHERE (${customerId}) IS NOT NULL AND ${condition}
    RETURNING id`,
    z.object({ id: z.string() }),
  );
}

export function jobById(db: Database, id: string) {
  return db.select().from(jobs).where(eq(jobs.id, id));
}

/** A download link kept on its job: the token's SHA-256 (hex), answering for `ttlSeconds` from the insert. */
export interface DownloadLink {
  tokenHash: string;
  ttlSeconds: number;
}

/** The job a download link answers for, while the link has not expired. */
export function jobByDownloadToken(db: Database, tokenHash: string) {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.downloadTokenHash, tokenHash), gt(jobs.downloadExpiresAt, sqlNow)));
}

export function visibleJob(db: Database, id: string, accessGroupId: number) {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.accessGroupId, accessGroupId)));
}

/** A saved report's name, for its e-mail (only as that customer's report). */
export function savedReportName(db: Database, reportId: string, customerId: number) {
  return db
    .select({ name: savedReports.name })
    .from(savedReports)
    .where(and(eq(savedReports.id, reportId), eq(savedReports.customerId, customerId)));
}

export function customerName(db: Database, customerId: number) {
  return db.select({ name: customers.name }).from(customers).where(eq(customers.id, customerId));
}

/** The end user of this customer with this address, for the report's header and footer. */
export function endUserByEmail(db: Database, customerId: number, email: string) {
  return (
    db
      .select({ attributes: endUsers.attributes })
      .from(endUsers)
      // SQLite's lower(), as the address was always compared (JavaScript's lower-casing differs beyond ASCII).
      .where(and(eq(endUsers.customerId, customerId), eq(sql`lower(${endUsers.email})`, sql`lower(${email})`)))
      .orderBy(asc(endUsers.id))
      .limit(1)
  );
}
