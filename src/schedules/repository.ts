import { and, asc, desc, eq, getTableColumns, lte, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { parsedRows, sqliteFlag } from "../db/rows";
import {
  alertEvaluations,
  customerGroupTags,
  customers,
  groupTags,
  reportScheduleRuns,
  reportSchedules,
  scheduleUnsubscribes,
  themes,
} from "../db/schema";
import { sqlNow } from "../db/time";
import { targetColumns, type DeliveryTarget } from "../delivery/target";

/**
 * Data access for report schedules — and alerts, the scheduler's other kind of rule (same
 * table, `kind`). Functions return unexecuted queries so services can put several in one
 * `db.batch` (one D1 round trip).
 */

export type RuleKind = "schedule" | "alert";

/** A schedule with the names of its target (the customer's provided_id or the group tag) and of its theme. */
export type ScheduleRow = typeof reportSchedules.$inferSelect & {
  providedId: string | null;
  groupTag: string | null;
  themeName: string | null;
};

export type RunRow = typeof reportScheduleRuns.$inferSelect;

/** A customer a run delivers to, with its own addresses. */
export type TargetRow = Pick<typeof customers.$inferSelect, "providedId" | "emails"> & { scheduleId: string; customerId: number };

/** Job statuses of a run's jobs, counted: `{ runId, status, n }`. */
const RunJobCount = z.object({ runId: z.number(), status: z.string(), n: z.number() });
export type RunJobCount = z.infer<typeof RunJobCount>;

/** A run as the raw inserts below answer it. */
const ClaimedRunRow = z.object({ id: z.number(), scheduleId: z.string(), slot: z.string() });

/** An alert's evaluation of one customer, as the raw reads below answer it (`fired` is SQLite's 0/1). */
const EvaluationRow = z.object({
  providedId: z.string(),
  slot: z.string(),
  trigger: z.string(),
  value: z.number().nullable(),
  holds: z.number().nullable(),
  fired: sqliteFlag,
});

// Aliased: in a D1 batch rows come back keyed by column name, and `name` is already the group tag's.
const themeNameColumn = sql<string | null>`${themes.name}`.as("theme_name");

function schedules(db: Database, where?: SQL) {
  return db
    .select({ ...getTableColumns(reportSchedules), providedId: customers.providedId, groupTag: groupTags.name, themeName: themeNameColumn })
    .from(reportSchedules)
    .leftJoin(customers, eq(customers.id, reportSchedules.customerId))
    .leftJoin(groupTags, eq(groupTags.id, reportSchedules.groupTagId))
    .leftJoin(themes, eq(themes.id, reportSchedules.themeId))
    .where(where)
    .orderBy(asc(reportSchedules.createdAt), asc(reportSchedules.id));
}

export const visibleSchedule = (db: Database, id: string, accessGroupId: number, kind: RuleKind = "schedule") =>
  schedules(db, and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId), eq(reportSchedules.kind, kind)));
export const scheduleById = (db: Database, id: string) => schedules(db, eq(reportSchedules.id, id));
export const schedulesOfAccessGroup = (db: Database, accessGroupId: number, kind: RuleKind = "schedule") =>
  schedules(db, and(eq(reportSchedules.accessGroupId, accessGroupId), eq(reportSchedules.kind, kind)));
export const allSchedules = (db: Database, kind: RuleKind = "schedule") => schedules(db, eq(reportSchedules.kind, kind));
/** Schedules matching `where` (e.g. a viewer's own subscriptions), oldest first. */
export const schedulesWhere = (db: Database, where: SQL) => schedules(db, where);

/**
 * What a rule stores. Its target (a dashboard, or a schedule's saved report) is stored in two
 * columns (src/delivery/target.ts); a row read back gives it with `storedTarget`.
 */
export type ScheduleValues = { target: DeliveryTarget } & Pick<
  ScheduleRow,
  | "customerId"
  | "groupTagId"
  | "cron"
  | "timezone"
  | "recipients"
  | "format"
  | "subject"
  | "variables"
  | "paused"
  | "nextRunAt"
  | "linkBase"
> &
  Partial<
    Pick<
      ScheduleRow,
      | "kind"
      | "source"
      | "subscriberEmail"
      | "environment"
      | "panelId"
      | "alertColumn"
      | "conditionOp"
      | "conditionValue"
      | "notify"
      | "callbackUrl"
      | "themeId"
      | "locale"
      | "pdf"
    >
  >;

/** The columns of a rule's values: its target in its two columns. */
function storedColumns({ target, ...v }: ScheduleValues) {
  return { ...v, ...targetColumns(target) };
}

export function insertSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues) {
  return db.insert(reportSchedules).values({ id, accessGroupId, ...storedColumns(v) });
}

export function updateSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues, kind: RuleKind = "schedule") {
  return db
    .update(reportSchedules)
    .set({ ...storedColumns(v), updatedAt: sqlNow })
    .where(and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId), eq(reportSchedules.kind, kind)))
    .returning({ id: reportSchedules.id });
}

export function deleteSchedule(db: Database, id: string, accessGroupId: number, kind: RuleKind = "schedule") {
  return db
    .delete(reportSchedules)
    .where(and(eq(reportSchedules.id, id), eq(reportSchedules.accessGroupId, accessGroupId), eq(reportSchedules.kind, kind)))
    .returning({ id: reportSchedules.id });
}

// ---- runs -----------------------------------------------------------------------------------

/** Schedules whose next slot has come (paused ones have no next_run_at). */
export function dueSchedules(db: Database, until: string, limit: number) {
  return db
    .select({
      id: reportSchedules.id,
      cron: reportSchedules.cron,
      timezone: reportSchedules.timezone,
      nextRunAt: reportSchedules.nextRunAt,
    })
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
  return parsedRows(
    db,
    sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger")
    SELECT id, ${slot}, 'schedule' FROM report_schedules WHERE id = ${scheduleId} AND next_run_at = ${dueAt}
    ON CONFLICT DO NOTHING RETURNING id, schedule_id AS scheduleId, slot`,
    ClaimedRunRow,
  );
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
export function insertManualRun(db: Database, scheduleId: string, accessGroupId: number | null, slot: string, kind: RuleKind = "schedule") {
  const visible = accessGroupId === null ? sql`` : sql` AND access_group_id = ${accessGroupId}`;
  // Raw: an INSERT … SELECT, as claimSlot.
  return parsedRows(
    db,
    sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger")
    SELECT id, ${slot}, 'manual' FROM report_schedules WHERE id = ${scheduleId} AND kind = ${kind}${visible}
    RETURNING id, schedule_id AS scheduleId, slot`,
    ClaimedRunRow,
  );
}

/** What a run started: its jobs, the customers skipped (no recipient), the deliveries not started. */
export interface FanOutTally {
  jobIds: string[];
  skipped: number;
  notStarted: number;
}

/** Addresses (lower-cased) that left a rule: its runs skip them. */
export function unsubscribed(db: Database, scheduleId: string) {
  return db.select({ email: scheduleUnsubscribes.email }).from(scheduleUnsubscribes).where(eq(scheduleUnsubscribes.scheduleId, scheduleId));
}

/** An alert's on_change state: the newest evaluation of each customer (`holds`). */
export function alertStates(db: Database, alertId: string) {
  // Raw: the newest row per customer by a correlated max(id), served by (alert_id, customer_id, id).
  return parsedRows(
    db,
    sql`
    SELECT e.customer_id AS customerId, e.holds AS holds FROM alert_evaluations e
     WHERE e.alert_id = ${alertId}
       AND e.id = (SELECT max(id) FROM alert_evaluations l WHERE l.alert_id = e.alert_id AND l.customer_id = e.customer_id)`,
    z.object({ customerId: z.number(), holds: z.number().nullable() }),
  );
}

export type EvaluationValues = Pick<
  typeof alertEvaluations.$inferInsert,
  "alertId" | "runId" | "customerId" | "slot" | "value" | "holds" | "fired"
>;

export function insertEvaluations(db: Database, rows: EvaluationValues[]) {
  return db.insert(alertEvaluations).values(rows).onConflictDoNothing();
}

/** The newest `perCustomer` evaluations of each customer of an alert, newest first. */
export function recentEvaluations(db: Database, alertId: string, perCustomer: number) {
  // Raw: a window function numbers each customer's evaluations, newest first.
  return parsedRows(
    db,
    sql`
    SELECT c.provided_id AS providedId, e.slot AS slot, r."trigger" AS "trigger", e.value AS value, e.holds AS holds, e.fired AS fired
      FROM (SELECT *, row_number() OVER (PARTITION BY customer_id ORDER BY id DESC) AS n FROM alert_evaluations WHERE alert_id = ${alertId}) e
      JOIN customers c ON c.id = e.customer_id
      JOIN report_schedule_runs r ON r.id = e.run_id
     WHERE e.n <= ${perCustomer}
     ORDER BY e.id DESC`,
    EvaluationRow,
  );
}

/** The evaluations of one run, per customer. */
export function runEvaluations(db: Database, runId: number) {
  return parsedRows(
    db,
    sql`
    SELECT c.provided_id AS providedId, e.slot AS slot, r."trigger" AS "trigger", e.value AS value, e.holds AS holds, e.fired AS fired
      FROM alert_evaluations e JOIN customers c ON c.id = e.customer_id JOIN report_schedule_runs r ON r.id = e.run_id
     WHERE e.run_id = ${runId}
     ORDER BY c.provided_id`,
    EvaluationRow,
  );
}

export function finishFanOut(db: Database, runId: number, tally: FanOutTally) {
  return db
    .update(reportScheduleRuns)
    .set({ jobIds: tally.jobIds, skipped: tally.skipped, notStarted: tally.notStarted, fannedOutAt: sqlNow })
    .where(eq(reportScheduleRuns.id, runId));
}

/** The customers a schedule delivers to now: its one customer, or every tagged customer of its access group. */
export function targets(db: Database, scheduleId: string) {
  // customer_id aliased: two columns named `id` in one result row would collide.
  const columns = {
    scheduleId: reportSchedules.id,
    customerId: sql<number>`${customers.id}`.as("target_customer_id"),
    providedId: customers.providedId,
    emails: customers.emails,
  };
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
  return db
    .select()
    .from(reportScheduleRuns)
    .where(eq(reportScheduleRuns.scheduleId, scheduleId))
    .orderBy(desc(reportScheduleRuns.id))
    .limit(limit);
}

export function runById(db: Database, runId: number) {
  return db.select().from(reportScheduleRuns).where(eq(reportScheduleRuns.id, runId));
}

/** Job statuses of the newest `limit` runs of a schedule, counted per run. */
export function recentRunJobCounts(db: Database, scheduleId: string, limit: number) {
  // Raw: json_each unpacks each run's job ids (a JSON array column) to join them with the jobs.
  return parsedRows(
    db,
    sql`
    SELECT r.id AS runId, j.status AS status, count(*) AS n
      FROM (SELECT id, job_ids FROM report_schedule_runs WHERE schedule_id = ${scheduleId} ORDER BY id DESC LIMIT ${limit}) r,
           json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     GROUP BY r.id, j.status`,
    RunJobCount,
  );
}

export function runJobCounts(db: Database, runId: number) {
  // Raw: json_each, as recentRunJobCounts.
  return parsedRows(
    db,
    sql`
    SELECT r.id AS runId, j.status AS status, count(*) AS n
      FROM report_schedule_runs r, json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     WHERE r.id = ${runId}
     GROUP BY r.id, j.status`,
    RunJobCount,
  );
}
