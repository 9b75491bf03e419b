import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { sqlNow } from "../db/time";

/**
 * Data access for report schedules. Functions return unexecuted queries so services can
 * put several in one `db.batch` (one D1 round trip).
 */

export interface ScheduleRow {
  id: string;
  access_group_id: number;
  dashboard_embed_id: string;
  customer_id: number | null;
  group_tag_id: number | null;
  provided_id: string | null;
  group_tag: string | null;
  cron: string;
  timezone: string;
  recipients: string;
  format: "report" | "pdf" | "image";
  subject: string | null;
  variables: string | null;
  paused: number;
  next_run_at: string | null;
  link_base: string;
  created_at: string;
}

export interface RunRow {
  id: number;
  schedule_id: string;
  slot: string;
  trigger: "schedule" | "manual";
  job_ids: string;
  skipped: number;
  not_started: number;
  fanned_out_at: string | null;
  created_at: string;
}

/** Job statuses of a run's jobs, counted: `{ run_id, status, n }`. */
export interface RunJobCount {
  run_id: number;
  status: string;
  n: number;
}

/** A customer a run delivers to, with its own addresses. */
export interface TargetRow {
  schedule_id: string;
  provided_id: string;
  emails: string;
}

const now = sqlNow;

const scheduleColumns = sql.raw(`s.id, s.access_group_id, s.dashboard_embed_id, s.customer_id, s.group_tag_id,
  c.provided_id AS provided_id, t.name AS group_tag, s.cron, s.timezone, s.recipients, s.format, s.subject, s.variables,
  s.paused, s.next_run_at, s.link_base, s.created_at`);
const scheduleJoins = sql.raw(`LEFT JOIN customers c ON c.id = s.customer_id LEFT JOIN group_tags t ON t.id = s.group_tag_id`);

function schedules(db: Database, where: SQL, order = sql`s.created_at, s.id`) {
  return db.all<ScheduleRow>(sql`SELECT ${scheduleColumns} FROM report_schedules s ${scheduleJoins} WHERE ${where} ORDER BY ${order}`);
}

export const visibleSchedule = (db: Database, id: string, accessGroupId: number) =>
  schedules(db, sql`s.id = ${id} AND s.access_group_id = ${accessGroupId}`);
export const scheduleById = (db: Database, id: string) => schedules(db, sql`s.id = ${id}`);
export const schedulesOfAccessGroup = (db: Database, accessGroupId: number) => schedules(db, sql`s.access_group_id = ${accessGroupId}`);
export const allSchedules = (db: Database) => schedules(db, sql`1 = 1`);

/** The customers' and dashboards' own lookups. */
export { visibleCustomerId } from "../customers/repository";
export { dashboardByEmbedId } from "../dashboards/repository";

export function groupTagIdByKey(db: Database, key: string) {
  return db.all<{ id: number }>(sql`SELECT id FROM group_tags WHERE name_key = ${key}`);
}

export interface ScheduleValues {
  dashboardEmbedId: string;
  customerId: number | null;
  groupTagId: number | null;
  cron: string;
  timezone: string;
  recipients: string;
  format: string;
  subject: string | null;
  variables: string | null;
  paused: boolean;
  nextRunAt: string | null;
  linkBase: string;
}

export function insertSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues) {
  return db.run(sql`
    INSERT INTO report_schedules (id, access_group_id, dashboard_embed_id, customer_id, group_tag_id, cron, timezone,
                                  recipients, format, subject, variables, paused, next_run_at, link_base)
    VALUES (${id}, ${accessGroupId}, ${v.dashboardEmbedId}, ${v.customerId}, ${v.groupTagId}, ${v.cron}, ${v.timezone},
            ${v.recipients}, ${v.format}, ${v.subject}, ${v.variables}, ${v.paused ? 1 : 0}, ${v.nextRunAt}, ${v.linkBase})`);
}

export function updateSchedule(db: Database, id: string, accessGroupId: number, v: ScheduleValues) {
  return db.all<{ id: string }>(sql`
    UPDATE report_schedules
       SET dashboard_embed_id = ${v.dashboardEmbedId}, customer_id = ${v.customerId}, group_tag_id = ${v.groupTagId},
           cron = ${v.cron}, timezone = ${v.timezone}, recipients = ${v.recipients}, format = ${v.format},
           subject = ${v.subject}, variables = ${v.variables}, paused = ${v.paused ? 1 : 0}, next_run_at = ${v.nextRunAt},
           link_base = ${v.linkBase}, updated_at = ${now}
     WHERE id = ${id} AND access_group_id = ${accessGroupId}
    RETURNING id`);
}

export function deleteSchedule(db: Database, id: string, accessGroupId: number) {
  return db.all<{ id: string }>(sql`DELETE FROM report_schedules WHERE id = ${id} AND access_group_id = ${accessGroupId} RETURNING id`);
}

// ---- runs -----------------------------------------------------------------------------------

/** Schedules whose next slot has come (paused ones have no next_run_at). */
export function dueSchedules(db: Database, until: string, limit: number) {
  return db.all<Pick<ScheduleRow, "id" | "cron" | "timezone" | "next_run_at">>(sql`
    SELECT id, cron, timezone, next_run_at FROM report_schedules
     WHERE next_run_at <= ${until} ORDER BY next_run_at, id LIMIT ${limit}`);
}

/**
 * Claims a scheduled slot: the partial unique index on (schedule_id, slot) lets exactly one
 * claim of a slot insert a row; every other claim returns nothing.
 */
export function claimSlot(db: Database, scheduleId: string, slot: string, dueAt: string) {
  // Only while the schedule is still due as read (not paused or changed in the meantime).
  return db.all<{ id: number; schedule_id: string; slot: string }>(sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger")
    SELECT id, ${slot}, 'schedule' FROM report_schedules WHERE id = ${scheduleId} AND next_run_at = ${dueAt}
    ON CONFLICT DO NOTHING RETURNING id, schedule_id, slot`);
}

/** Moves the schedule on, unless another tick already did (or someone changed it meanwhile). */
export function advance(db: Database, scheduleId: string, from: string, to: string | null) {
  return db.run(sql`UPDATE report_schedules SET next_run_at = ${to} WHERE id = ${scheduleId} AND next_run_at = ${from}`);
}

export function insertManualRun(db: Database, scheduleId: string, slot: string) {
  return db.all<{ id: number; schedule_id: string; slot: string }>(sql`
    INSERT INTO report_schedule_runs (schedule_id, slot, "trigger") VALUES (${scheduleId}, ${slot}, 'manual') RETURNING id, schedule_id, slot`);
}

export function finishFanOut(db: Database, runId: number, jobIds: string[], skipped: number, notStarted: number) {
  return db.run(sql`
    UPDATE report_schedule_runs SET job_ids = ${JSON.stringify(jobIds)}, skipped = ${skipped}, not_started = ${notStarted}, fanned_out_at = ${now}
     WHERE id = ${runId}`);
}

/** The customers a schedule delivers to now: its one customer, or every tagged customer of its access group. */
export function targets(db: Database, scheduleId: string) {
  return db.all<TargetRow>(sql`
    SELECT s.id AS schedule_id, c.provided_id, c.emails
      FROM report_schedules s JOIN customers c ON c.id = s.customer_id AND c.access_group_id = s.access_group_id
     WHERE s.id = ${scheduleId}
    UNION ALL
    SELECT s.id, c.provided_id, c.emails
      FROM report_schedules s
      JOIN customer_group_tags ct ON ct.group_tag_id = s.group_tag_id
      JOIN customers c ON c.id = ct.customer_id AND c.access_group_id = s.access_group_id
     WHERE s.id = ${scheduleId}
     ORDER BY 2`);
}

export function recentRuns(db: Database, scheduleId: string, limit: number) {
  return db.all<RunRow>(sql`SELECT * FROM report_schedule_runs WHERE schedule_id = ${scheduleId} ORDER BY id DESC LIMIT ${limit}`);
}

export function runById(db: Database, runId: number) {
  return db.all<RunRow>(sql`SELECT * FROM report_schedule_runs WHERE id = ${runId}`);
}

/** Job statuses of the newest `limit` runs of a schedule, counted per run. */
export function recentRunJobCounts(db: Database, scheduleId: string, limit: number) {
  return db.all<RunJobCount>(sql`
    SELECT r.id AS run_id, j.status AS status, count(*) AS n
      FROM (SELECT id, job_ids FROM report_schedule_runs WHERE schedule_id = ${scheduleId} ORDER BY id DESC LIMIT ${limit}) r,
           json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     GROUP BY r.id, j.status`);
}

export function runJobCounts(db: Database, runId: number) {
  return db.all<RunJobCount>(sql`
    SELECT r.id AS run_id, j.status AS status, count(*) AS n
      FROM report_schedule_runs r, json_each(r.job_ids) je JOIN jobs j ON j.id = je.value
     WHERE r.id = ${runId}
     GROUP BY r.id, j.status`);
}
