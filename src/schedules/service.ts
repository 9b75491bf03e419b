import { customerNotFound } from "../customers/not-found";
import { dashboardNotFound } from "../dashboards/not-found";
import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import * as unsubscribeRepo from "../unsubscribe/repository";
import { CronSchedule, minuteOf, slotString } from "./cron";
import { reportOnlyFormat, requestedTarget, storedTarget, withTarget, type DashboardTarget, type DeliveryTarget } from "../delivery/target";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import * as reportBuilderRepo from "../report-builder/repository";
import * as groupTagsRepo from "../group-tags/repository";
import * as repo from "./repository";
import { runView } from "./runs";
import { themeByName } from "../themes/repository";
import { knownTheme } from "../themes/service";
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
  const target = storedTarget(row);
  return {
    id: row.id,
    dashboard_embed_id: target.kind === "dashboard" ? target.embedId : null,
    // Only on a saved report's schedule: a dashboard's schedule keeps the contract's shape.
    ...(target.kind === "saved_report" ? { report_id: target.reportId } : {}),
    provided_id: row.providedId,
    group_tag: row.groupTag,
    cron: row.cron,
    timezone: row.timezone,
    recipients: row.recipients,
    format: row.format,
    pdf: row.pdf ?? null,
    subject: row.subject,
    variables: row.variables,
    paused: row.paused,
    next_run_at: row.nextRunAt,
    source: row.source,
    theme: row.themeName,
    locale: row.locale,
    environment: row.environment ?? null,
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
 * What a rule shows: a schedule's dashboard or saved report, or an alert's panel of a
 * dashboard (an alert always watches a dashboard).
 */
export type RuleShows = { target: DeliveryTarget; panelId?: undefined } | { target: DashboardTarget; panelId: string };

/** Who a rule goes to: one customer (`providedId`) or every customer with a tag (`groupTag`). */
export interface RuleAudience {
  providedId: string | null;
  groupTag: string | null;
}

/** The theme a rule's e-mails are drawn in, when the request names it (null: each customer's own). */
export interface RuleTheme {
  theme?: string | null;
}

/**
 * Resolves the audience and checks the dashboard — or the saved report, which must be the one
 * customer's — (and, for an alert, that its panel is a data panel of the version its e-mail
 * shows): 404s before 422s, as everywhere. One D1 round trip.
 */
export async function resolveReferences(
  scope: ScheduleScope,
  refs: RuleShows & RuleAudience & RuleTheme,
): Promise<{ customerId: number | null; groupTagId: number | null; themeId?: number | null }> {
  const { db, accessGroupId } = scope;
  const { target } = refs;
  const [customer, shown, tag, version, theme] = await db.batch([
    customersRepo.visibleCustomerId(db, refs.providedId ?? "", accessGroupId),
    target.kind === "dashboard"
      ? dashboardsRepo.dashboardByEmbedId(db, target.embedId)
      : reportBuilderRepo.reportOfVisibleCustomer(db, target.reportId, refs.providedId ?? "", accessGroupId),
    groupTagsRepo.groupTagByKey(db, groupTagsRepo.tagKey(refs.groupTag ?? "")),
    dashboardsRepo.chooseVersion(db, refs.panelId === undefined ? "" : refs.target.embedId, ["email", "production"], true),
    themeByName(db, accessGroupId, refs.theme ?? ""),
  ]);
  if (refs.providedId !== null && customer.length === 0) {
    throw customerNotFound(refs.providedId);
  }
  // A saved report is one customer's (the schemas refuse it with a group tag); any other customer's is not found.
  if (target.kind === "saved_report") {
    if (refs.providedId === null)
      throw new ApiError(
        "validation_error",
        "A saved report (report_id) belongs to one customer: give provided_id, not group_tag.",
        "group_tag",
      );
    if (shown.length === 0)
      throw new ApiError("report_not_found", `Customer '${refs.providedId}' has no saved report '${target.reportId}'.`, "report_id");
  } else if (shown.length === 0) throw dashboardNotFound(target.embedId, "dashboard_embed_id");
  if (refs.panelId !== undefined) {
    const panels = version[0]?.definition?.panels ?? [];
    if (!panels.some((p) => p.id === refs.panelId && p.type !== "text")) {
      throw new ApiError("panel_not_found", `Dashboard '${refs.target.embedId}' has no data panel '${refs.panelId}'.`, "panel_id");
    }
  }
  if (refs.groupTag !== null && tag.length === 0)
    throw new ApiError("unknown_group_tag", `Group tag '${refs.groupTag}' does not exist.`, "group_tag");
  // A theme named is checked (422 unknown_theme); null clears it; absent leaves it as it is.
  const themeId = refs.theme === undefined ? undefined : refs.theme === null ? null : knownTheme(theme, refs.theme).id;
  return {
    customerId: refs.providedId !== null ? customer[0].id : null,
    groupTagId: refs.groupTag !== null ? tag[0].id : null,
    ...(themeId !== undefined ? { themeId } : {}),
  };
}

/**
 * The columns a new schedule or alert shares, its references checked first (one D1 round
 * trip; an alert's panel is checked too): timing from now, the target, what it sends.
 */
export async function newRuleColumns(
  scope: ScheduleScope,
  input: Omit<RuleInput, "dashboard_embed_id">,
  shows: RuleShows,
  linkBase: string,
  now: Date,
) {
  const timezone = input.timezone ?? "UTC";
  const paused = input.paused ?? false;
  const nextRun = paused ? null : nextRunAt(input.cron, timezone, now);
  const audience = await resolveReferences(scope, {
    ...shows,
    providedId: input.provided_id ?? null,
    groupTag: input.group_tag ?? null,
    theme: input.theme,
  });
  return {
    target: shows.target,
    ...audience,
    cron: input.cron.trim(),
    timezone,
    recipients: input.recipients ?? [],
    subject: input.subject ?? null,
    variables: input.variables ?? null,
    paused,
    nextRunAt: nextRun,
    linkBase,
    locale: input.locale ?? null,
  };
}

export async function createSchedule(
  scope: ScheduleScope,
  input: CreateScheduleInput,
  linkBase: string,
  now = new Date(),
): Promise<Schedule> {
  const { target, ...rule } = withTarget(input);
  const columns = await newRuleColumns(scope, rule, { target }, linkBase, now);
  const id = `sch_${randomAlphanumeric(20)}`;
  const [, [row]] = await scope.db.batch([
    repo.insertSchedule(scope.db, id, scope.accessGroupId, { ...columns, format: input.format ?? "report", pdf: input.pdf ?? null }),
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
 * Who an update goes to (schedules and alerts): giving `provided_id` or `group_tag` replaces
 * the audience; else the stored one stays.
 */
export function updatedAudience(current: RuleAudience, input: { provided_id?: string; group_tag?: string }): RuleAudience {
  const retarget = input.provided_id !== undefined || input.group_tag !== undefined;
  return {
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
  // Giving `dashboard_embed_id` or `report_id` replaces what is delivered; else the stored one stays.
  const target = requestedTarget(input) ?? storedTarget(current);
  // csv stays a saved report's format: a dashboard's schedule can neither get it nor keep it.
  const format = input.format ?? current.format;
  if (target.kind === "dashboard" && reportOnlyFormat(format)) {
    throw new ApiError("validation_error", `format: '${format}' is the rows of one result: only for a saved report (report_id).`, "format");
  }
  const audience = await resolveReferences(scope, { target, ...updatedAudience(current, input), theme: input.theme });
  const [updated, [row]] = await scope.db.batch([
    repo.updateSchedule(scope.db, input.id, scope.accessGroupId, {
      target,
      ...audience,
      ...timing,
      recipients: input.recipients !== undefined ? input.recipients : current.recipients,
      format,
      pdf: input.pdf !== undefined ? input.pdf : current.pdf,
      subject: input.subject !== undefined ? input.subject : current.subject,
      variables: input.variables !== undefined ? input.variables : current.variables,
      linkBase,
      ...(input.locale !== undefined ? { locale: input.locale } : {}),
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
