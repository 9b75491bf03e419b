import { customerNotFound } from "../customers/not-found";
import { dashboardNotFound } from "../dashboards/service";
import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import * as unsubscribeRepo from "../unsubscribe/repository";
import { CronSchedule, minuteOf, slotString } from "./cron";
import { reportOnlyFormat } from "../report-builder/delivery-target";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import * as reportBuilderRepo from "../report-builder/repository";
import * as groupTagsRepo from "../group-tags/repository";
import * as repo from "./repository";
import { runView } from "./runs";
import type { CreateScheduleInput, RuleInput, Run, Schedule, UpdateScheduleInput } from "./schemas";

/**
 * Report schedules as rules: create, read, update, delete (alerts, kind='alert' rows of the
 * same table, share the checks and the update rules below). Running them is the runner's
 * (./runner/: the tick, the fan-out, run now).
 */

export interface ScheduleScope {
  db: Database;
  accessGroupId: number;
}

/** Runs shown by get_report_schedule, newest first. */
const RECENT_RUNS = 20;

export function view(row: repo.ScheduleRow): Schedule {
  return {
    id: row.id,
    dashboard_embed_id: row.reportId === null ? row.dashboardEmbedId : null,
    // Only on a saved report's schedule: a dashboard's schedule keeps the contract's shape.
    ...(row.reportId !== null ? { report_id: row.reportId } : {}),
    provided_id: row.providedId,
    group_tag: row.groupTag,
    cron: row.cron,
    timezone: row.timezone,
    recipients: row.recipients,
    format: row.format,
    subject: row.subject,
    variables: row.variables,
    paused: row.paused,
    next_run_at: row.nextRunAt,
    source: row.source,
    created_at: row.createdAt,
  };
}

/** The next slot strictly after the current minute; a schedule that never fires again is refused. */
export function nextRunAt(cron: string, timezone: string, now: Date): string {
  const next = new CronSchedule(cron, timezone).next(minuteOf(now));
  if (!next) throw new ApiError("validation_error", "cron: never matches a future date in this time zone.", "cron");
  return slotString(next);
}

export const scheduleNotFound = (id: string) => new ApiError("schedule_not_found", `Report schedule '${id}' does not exist.`, "id");

/**
 * Resolves the target and checks the dashboard — or the saved report, which must be the one
 * customer's — (and, for an alert, that its panel is a data panel of the version its e-mail
 * shows): 404s before 422s, as everywhere. One D1 round trip.
 */
export async function resolveReferences(
  scope: ScheduleScope,
  refs: { embedId: string; providedId: string | null; groupTag: string | null; panelId?: string; reportId?: string | null },
): Promise<{ customerId: number | null; groupTagId: number | null }> {
  const { db, accessGroupId } = scope;
  const reportId = refs.reportId ?? null;
  const [customer, dashboard, tag, version, report] = await db.batch([
    customersRepo.visibleCustomerId(db, refs.providedId ?? "", accessGroupId),
    dashboardsRepo.dashboardByEmbedId(db, refs.embedId),
    groupTagsRepo.groupTagByKey(db, groupTagsRepo.tagKey(refs.groupTag ?? "")),
    dashboardsRepo.chooseVersion(db, refs.panelId === undefined ? "" : refs.embedId, ["email", "production"], true),
    reportBuilderRepo.reportOfVisibleCustomer(db, reportId ?? "", refs.providedId ?? "", accessGroupId),
  ]);
  if (refs.providedId !== null && customer.length === 0) {
    throw customerNotFound(refs.providedId);
  }
  // A saved report is one customer's (the schemas refuse it with a group tag); any other customer's is not found.
  if (reportId !== null) {
    if (refs.providedId === null)
      throw new ApiError(
        "validation_error",
        "A saved report (report_id) belongs to one customer: give provided_id, not group_tag.",
        "group_tag",
      );
    if (report.length === 0)
      throw new ApiError("report_not_found", `Customer '${refs.providedId}' has no saved report '${reportId}'.`, "report_id");
  } else if (dashboard.length === 0) throw dashboardNotFound(refs.embedId, "dashboard_embed_id");
  if (refs.panelId !== undefined) {
    const panels = version[0]?.definition?.panels ?? [];
    if (!panels.some((p) => p.id === refs.panelId && p.type !== "text")) {
      throw new ApiError("panel_not_found", `Dashboard '${refs.embedId}' has no data panel '${refs.panelId}'.`, "panel_id");
    }
  }
  if (refs.groupTag !== null && tag.length === 0)
    throw new ApiError("unknown_group_tag", `Group tag '${refs.groupTag}' does not exist.`, "group_tag");
  return { customerId: refs.providedId !== null ? customer[0].id : null, groupTagId: refs.groupTag !== null ? tag[0].id : null };
}

/**
 * The columns a new schedule or alert shares, its references checked first (one D1 round
 * trip; an alert's `panelId` is checked too): timing from now, the target, what it sends.
 */
export async function newRuleColumns(
  scope: ScheduleScope,
  input: Omit<RuleInput, "dashboard_embed_id"> & { dashboard_embed_id?: string; report_id?: string },
  linkBase: string,
  now: Date,
  panelId?: string,
) {
  const timezone = input.timezone ?? "UTC";
  const paused = input.paused ?? false;
  const nextRun = paused ? null : nextRunAt(input.cron, timezone, now);
  const reportId = input.report_id ?? null;
  const target = await resolveReferences(scope, {
    embedId: input.dashboard_embed_id ?? "",
    providedId: input.provided_id ?? null,
    groupTag: input.group_tag ?? null,
    panelId,
    reportId,
  });
  return {
    // A saved report's schedule has no dashboard ('' as the column is NOT NULL).
    dashboardEmbedId: input.dashboard_embed_id ?? "",
    reportId,
    ...target,
    cron: input.cron.trim(),
    timezone,
    recipients: input.recipients ?? [],
    subject: input.subject ?? null,
    variables: input.variables ?? null,
    paused,
    nextRunAt: nextRun,
    linkBase,
  };
}

export async function createSchedule(
  scope: ScheduleScope,
  input: CreateScheduleInput,
  linkBase: string,
  now = new Date(),
): Promise<Schedule> {
  const columns = await newRuleColumns(scope, input, linkBase, now);
  const id = `sch_${randomAlphanumeric(20)}`;
  const [, [row]] = await scope.db.batch([
    repo.insertSchedule(scope.db, id, scope.accessGroupId, { ...columns, format: input.format ?? "report" }),
    repo.scheduleById(scope.db, id),
  ]);
  return view(row);
}

export async function listSchedules(scope: ScheduleScope): Promise<Schedule[]> {
  return (await repo.schedulesOfAccessGroup(scope.db, scope.accessGroupId)).map(view);
}

/** Operators: every schedule of every access group. */
export async function listAllSchedules(db: Database): Promise<(Schedule & { access_group_id: number })[]> {
  return (await repo.allSchedules(db)).map((row) => ({ ...view(row), access_group_id: row.accessGroupId }));
}

export async function getSchedule(scope: ScheduleScope, id: string): Promise<{ schedule: Schedule; unsubscribed: string[]; runs: Run[] }> {
  const [[row], unsubscribed, runs, counts] = await scope.db.batch([
    repo.visibleSchedule(scope.db, id, scope.accessGroupId),
    unsubscribeRepo.unsubscribedOf(scope.db, id),
    repo.recentRuns(scope.db, id, RECENT_RUNS),
    repo.recentRunJobCounts(scope.db, id, RECENT_RUNS),
  ]);
  if (!row) throw scheduleNotFound(id);
  return { schedule: view(row), unsubscribed: unsubscribed.map((u) => u.email), runs: runs.map((run) => runView(run, counts)) };
}

/**
 * The timing an update leaves (schedules and alerts): a new cron, time zone or un-pausing
 * starts counting from now, so slots missed while paused are never sent; otherwise the next
 * run stays.
 */
export function updatedTiming(
  current: { cron: string; timezone: string; paused: boolean; nextRunAt: string | null },
  input: { cron?: string; timezone?: string; paused?: boolean },
  now: Date,
): { cron: string; timezone: string; paused: boolean; nextRunAt: string | null } {
  const cron = input.cron?.trim() ?? current.cron;
  const timezone = input.timezone ?? current.timezone;
  const paused = input.paused ?? current.paused;
  const timingChanged = cron !== current.cron || timezone !== current.timezone || paused !== current.paused;
  const nextRun = paused ? null : timingChanged || current.nextRunAt === null ? nextRunAt(cron, timezone, now) : current.nextRunAt;
  return { cron, timezone, paused, nextRunAt: nextRun };
}

/**
 * What an update targets (schedules and alerts): giving `provided_id` or `group_tag` replaces
 * the target, giving `dashboard_embed_id` or `report_id` what is delivered (the other becomes
 * null); else the stored ones stay.
 */
export function updatedReferences(
  current: { dashboardEmbedId: string; reportId: string | null; providedId: string | null; groupTag: string | null },
  input: { dashboard_embed_id?: string; report_id?: string; provided_id?: string; group_tag?: string },
): { embedId: string; reportId: string | null; providedId: string | null; groupTag: string | null } {
  const retarget = input.provided_id !== undefined || input.group_tag !== undefined;
  const shows =
    input.dashboard_embed_id !== undefined
      ? { embedId: input.dashboard_embed_id, reportId: null }
      : input.report_id !== undefined
        ? { embedId: "", reportId: input.report_id }
        : { embedId: current.dashboardEmbedId, reportId: current.reportId };
  return {
    ...shows,
    providedId: retarget ? (input.provided_id ?? null) : current.providedId,
    groupTag: retarget ? (input.group_tag ?? null) : current.groupTag,
  };
}

/**
 * Each given field replaces the stored one; giving `provided_id` or `group_tag` replaces the
 * target. A new cron, time zone or un-pausing starts counting from now: slots missed while
 * paused are never sent.
 */
export async function updateSchedule(
  scope: ScheduleScope,
  input: UpdateScheduleInput,
  linkBase: string,
  now = new Date(),
): Promise<Schedule> {
  const [current] = await repo.visibleSchedule(scope.db, input.id, scope.accessGroupId);
  if (!current) throw scheduleNotFound(input.id);
  const timing = updatedTiming(current, input, now);
  const refs = updatedReferences(current, input);
  // csv stays a saved report's format: a dashboard's schedule can neither get it nor keep it.
  const format = input.format ?? current.format;
  if (refs.reportId === null && reportOnlyFormat(format)) {
    throw new ApiError("validation_error", `format: '${format}' is the rows of one result: only for a saved report (report_id).`, "format");
  }
  const target = await resolveReferences(scope, refs);
  const [updated, [row]] = await scope.db.batch([
    repo.updateSchedule(scope.db, input.id, scope.accessGroupId, {
      dashboardEmbedId: refs.embedId,
      reportId: refs.reportId,
      ...target,
      ...timing,
      recipients: input.recipients !== undefined ? input.recipients : current.recipients,
      format,
      subject: input.subject !== undefined ? input.subject : current.subject,
      variables: input.variables !== undefined ? input.variables : current.variables,
      linkBase,
    }),
    repo.scheduleById(scope.db, input.id),
  ]);
  if (updated.length === 0 || !row) throw scheduleNotFound(input.id);
  return view(row);
}

export async function deleteSchedule(scope: ScheduleScope, id: string): Promise<void> {
  const deleted = await repo.deleteSchedule(scope.db, id, scope.accessGroupId);
  if (deleted.length === 0) throw scheduleNotFound(id);
}
