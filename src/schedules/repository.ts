import { and, asc, desc, eq, getTableColumns, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { customerGroupTags, customers, groupTags, reportScheduleRuns, reportSchedules } from "../db/schema";
import { sqlNow } from "../db/time";

/**
 * Data access for report schedules. Functions return unexecuted queries so services can
 * put several in one `db.batch` (one D1 round trip).
 */

/** A schedule with the names of its target: the customer's provided_id or the group tag. */
export type ScheduleRow = typeof reportSchedules.$inferSelect & { providedId: string | null; groupTag: string | null };

export type RunRow = typeof reportScheduleRuns.$inferSelect;

/** A customer a run delivers to, with its own addresses. */
export type TargetRow = Pick<typeof customers.$inferSelect, "providedId" | "emails"> & { scheduleId: string };

/** Job statuses of a run's jobs, counted: `{ runId, status, n }`. */
export interface RunJobCount {
  runId: number;
  status: string;
  n: number;
}

function schedules(db: Database, where?: SQL) {
  return db
    .select({ ...getTableColumns(reportSchedules), providedId: customers.providedId, groupTag: groupTags.name })
    .from(reportSchedules)
    .leftJoin(customers, eq(customers.id, reportSchedules.customerId))
    .leftJoin(groupTags, eq(groupTags.id, reportSchedules.groupTagId))
    .where(where)
    .orderBy(asc(reportSchedules.createdAt), asc(reportSchedules.id));
}

export const visibleSchedule = (db: Database, id: string, accessGroupId: number) =>
  schedules(db, and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId)));
export const scheduleById = (db: Database, id: string) => schedules(db, eq(reportSchedules.id, id));
export const schedulesOfAccessGroup = (db: Database, accessGroupId: number) => schedules(db, eq(reportSchedules.accessGroupId, accessGroupId));
export const allSchedules = (db: Database) => schedules(db);

/** The customers' and dashboards' own lookups. */
export { visibleCustomerId } from "../customers/repository";
export { dashboardByEmbedId } from "../dashboards/repository";

/** Group tags are the group-tags module's; a schedule only checks that its tag exists. */
export { groupTagByKey, tagKey } from "../group-tags/repository";

export type ScheduleValues = Pick<
  ScheduleRow,
  "dashboardEmbedId" | "customerId" | "groupTagId" | "cron" | "timezone" | "recipients" | "format" | "subject" | "variables" | "paused" | "nextRunAt" | "linkBase"
>;

export function insertSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues) {
  return db.insert(reportSchedules).values({ id, accessGroupId, ...v });
}

export function updateSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues) {
  return db
    .update(reportSchedules)
    .set({ ...v, updatedAt: sqlNow })
    .where(and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId)))
    .returning({ id: reportSchedules.id });
}

export function deleteSchedule(db: Database, id: string, accessGroupId: number) {
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId)))
    .returning({ id: reportSchedules.id });
}

// ---- runs -----------------------------------------------------------------------------------

/** Schedules whose next slot has come (paused ones have no next_run_at). */
export function dueSchedules(db: Database, until: string, limit: number) {
  return db
    .select({ id: reportSchedules.id, cron: reportSchedules.cron, timezone: reportSchedules.timezone, nextRunAt: reportSchedules.nextRunAt })
    .from(reportSchedules)
    .where(lte(reportSchedules.nextRunAt, until))
    .orderBy(asc(reportSchedules.nextRunAt), asc(reportSchedules.id))
    .limit(limit);
}

/**
 * Claims a scheduled slot: the partial unique index on (schedule_id, slot) lets exactly one
 * claim of a slot insert a row; every other claim returns nothing.
 */
export function claimSlot(db: Database, scheduleId: string, slot: string, dueAt: string) {
  // Only while the schedule is still due as read (not paused or changed in the meantime).
  // Raw: an INSERT … SELECT, and drizzle's insert-select must list every column of the table, defaults included.
  return db.all<Pick<RunRow, "id" | "scheduleId" | "slot">>(sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger")
    SELECT id, ${slot}, 'schedule' FROM report_schedules WHERE id = ${scheduleId} AND next_run_at = ${dueAt}
    ON CONFLICT DO NOTHING RETURNING id, schedule_id AS scheduleId, slot`);
}

/** Moves the schedule on, unless another tick already did (or someone changed it meanwhile). */
export function advance(db: Database, scheduleId: string, from: string, to: string | null) {
  return db
    .update(reportSchedules)
    .set({ nextRunAt: to })
    .where(and(eq(reportSchedules.id, scheduleId), eq(reportSchedules.nextRunAt, from)));
}

/**
 * A manual run of a schedule the caller may see (`accessGroupId` null: an operator, any
 * schedule); nothing is inserted for any other, so the check and the insert are one statement.
 */
export function insertManualRun(db: Database, scheduleId: string, accessGroupId: number | null, slot: string) {
  const visible = accessGroupId === null ? sql`` : sql` AND access_group_id = ${accessGroupId}`;
  // Raw: an INSERT … SELECT, as claimSlot.
  return db.all<Pick<RunRow, "id" | "scheduleId" | "slot">>(sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger")
    SELECT id, ${slot}, 'manual' FROM report_schedules WHERE id = ${scheduleId}${visible}
    RETURNING id, schedule_id AS scheduleId, slot`);
}

/** What a run started: its jobs, the customers skipped (no recipient), the deliveries not started. */
export interface FanOutTally {
  jobIds: string[];
  skipped: number;
  notStarted: number;
}

export function finishFanOut(db: Database, runId: number, tally: FanOutTally) {
  return db
    .update(reportScheduleRuns)
    .set({ jobIds: JSON.stringify(tally.jobIds), skipped: tally.skipped, notStarted: tally.notStarted, fannedOutAt: sqlNow })
    .where(eq(reportScheduleRuns.id, runId));
}

/** The customers a schedule delivers to now: its one customer, or every tagged customer of its access group. */
export function targets(db: Database, scheduleId: string) {
  const columns = { scheduleId: reportSchedules.id, providedId: customers.providedId, emails: customers.emails };
  const inAccessGroup = eq(customers.accessGroupId, reportSchedules.accessGroupId);
  return db
    .select(columns)
    .from(reportSchedules)
    .innerJoin(customers, and(eq(customers.id, reportSchedules.customerId), inAccessGroup))
    .where(eq(reportSchedules.id, scheduleId))
    .unionAll(
      db
        .select(columns)
        .from(reportSchedules)
        .innerJoin(customerGroupTags, eq(customerGroupTags.groupTagId, reportSchedules.groupTagId))
        .innerJoin(customers, and(eq(customers.id, customerGroupTags.customerId), inAccessGroup))
        .where(eq(reportSchedules.id, scheduleId)),
    )
    .orderBy(asc(customers.providedId));
}

export function recentRuns(db: Database, scheduleId: string, limit: number) {
  return db.select().from(reportScheduleRuns).where(eq(reportScheduleRuns.scheduleId, scheduleId)).orderBy(desc(reportScheduleRuns.id)).limit(limit);
}

export function runById(db: Database, runId: number) {
  return db.select().from(reportScheduleRuns).where(eq(reportScheduleRuns.id, runId));
}

/** Job statuses of the newest `limit` runs of a schedule, counted per run. */
export function recentRunJobCounts(db: Database, scheduleId: string, limit: number) {
  // Raw: json_each unpacks each run's job ids (a JSON array column) to join them with the jobs.
  return db.all<RunJobCount>(sql`
    SELECT r.id AS runId, j.status AS status, count(*) AS n
      FROM (SELECT id, job_ids FROM report_schedule_runs WHERE schedule_id = ${scheduleId} ORDER BY id DESC LIMIT ${limit}) r,
           json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     GROUP BY r.id, j.status`);
}

export function runJobCounts(db: Database, runId: number) {
  // Raw: json_each, as recentRunJobCounts.
  return db.all<RunJobCount>(sql`
    SELECT r.id AS runId, j.status AS status, count(*) AS n
      FROM report_schedule_runs r, json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     WHERE r.id = ${runId}
     GROUP BY r.id, j.status`);
}
