import { normaliseEmails } from "../customers/view";
import { customerNotFound } from "../customers/not-found";
import { dashboardNotFound } from "../dashboards/service";
import { createDatabase, RoundTripCounter, type Database } from "../db/client";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import { errorDetail, log, setLogLevel } from "../lib/log";
import { CronSchedule, minuteOf, slotString } from "./cron";
import { startDelivery, type Delivery } from "./deliveries";
import * as repo from "./repository";
import type { CreateScheduleInput, Run, Schedule, UpdateScheduleInput } from "./schemas";

export interface ScheduleScope {
  db: Database;
  accessGroupId: number;
}

/** Runs shown by get_report_schedule, newest first. */
const RECENT_RUNS = 20;
/** A run whose fan-out never finished (the Worker died meanwhile) counts as failed after this. */
const STALE_FAN_OUT_MS = 15 * 60_000;
/** Schedules started by one tick; more wait for the next minute's tick. */
const MAX_RUNS_PER_TICK = 200;
/** Delivery jobs started at the same time during a fan-out. */
const FAN_OUT_CONCURRENCY = 6;

function view(row: repo.ScheduleRow): Schedule {
  return {
    id: row.id,
    dashboard_embed_id: row.dashboardEmbedId,
    provided_id: row.providedId,
    group_tag: row.groupTag,
    cron: row.cron,
    timezone: row.timezone,
    recipients: JSON.parse(row.recipients) as string[],
    format: row.format,
    subject: row.subject,
    variables: row.variables === null ? null : (JSON.parse(row.variables) as Record<string, unknown>),
    paused: row.paused,
    next_run_at: row.nextRunAt,
    created_at: row.createdAt,
  };
}

/**
 * A run's status follows from its jobs: running while any job is under way (or the fan-out
 * has not finished), then done (every job done), failed (none done) or partial. Deliveries
 * that could not even be started count as failed jobs.
 */
export function runStatus(run: repo.RunRow, counts: repo.RunJobCount[], now = Date.now()): Run["status"] {
  if (run.fannedOutAt === null) return Date.parse(run.createdAt) < now - STALE_FAN_OUT_MS ? "failed" : "running";
  let pending = 0;
  let done = 0;
  let failed = run.notStarted;
  for (const count of counts) {
    if (count.runId !== run.id) continue;
    if (count.status === "done") done += count.n;
    else if (count.status === "failed") failed += count.n;
    else pending += count.n;
  }
  if (pending > 0) return "running";
  if (failed === 0) return "done";
  return done === 0 ? "failed" : "partial";
}

function runView(run: repo.RunRow, counts: repo.RunJobCount[]): Run {
  return {
    slot: run.slot,
    trigger: run.trigger,
    status: runStatus(run, counts),
    job_ids: JSON.parse(run.jobIds) as string[],
    skipped: run.skipped,
  };
}

/** The next slot strictly after the current minute; a schedule that never fires again is refused. */
function nextRunAt(cron: string, timezone: string, now: Date): string {
  const next = new CronSchedule(cron, timezone).next(minuteOf(now));
  if (!next) throw new ApiError("validation_error", "cron: never matches a future date in this time zone.", "cron");
  return slotString(next);
}

const notFound = (id: string) => new ApiError("schedule_not_found", `Report schedule '${id}' does not exist.`, "id");

/** Resolves the target and checks the dashboard: 404s before 422s, as everywhere. */
async function resolveReferences(
  scope: ScheduleScope,
  refs: { embedId: string; providedId: string | null; groupTag: string | null },
): Promise<{ customerId: number | null; groupTagId: number | null }> {
  const { db, accessGroupId } = scope;
  const [customer, dashboard, tag] = await db.batch([
    repo.visibleCustomerId(db, refs.providedId ?? "", accessGroupId),
    repo.dashboardByEmbedId(db, refs.embedId),
    repo.groupTagByKey(db, repo.tagKey(refs.groupTag ?? "")),
  ]);
  if (refs.providedId !== null && customer.length === 0) {
    throw customerNotFound(refs.providedId);
  }
  if (dashboard.length === 0) throw dashboardNotFound(refs.embedId, "dashboard_embed_id");
  if (refs.groupTag !== null && tag.length === 0) throw new ApiError("unknown_group_tag", `Group tag '${refs.groupTag}' does not exist.`, "group_tag");
  return { customerId: refs.providedId !== null ? customer[0].id : null, groupTagId: refs.groupTag !== null ? tag[0].id : null };
}

export async function createSchedule(scope: ScheduleScope, input: CreateScheduleInput, linkBase: string, now = new Date()): Promise<Schedule> {
  const timezone = input.timezone ?? "UTC";
  const paused = input.paused ?? false;
  const nextRun = paused ? null : nextRunAt(input.cron, timezone, now);
  const target = await resolveReferences(scope, {
    embedId: input.dashboard_embed_id,
    providedId: input.provided_id ?? null,
    groupTag: input.group_tag ?? null,
  });
  const id = `sch_${randomAlphanumeric(20)}`;
  const [, [row]] = await scope.db.batch([
    repo.insertSchedule(scope.db, id, scope.accessGroupId, {
      dashboardEmbedId: input.dashboard_embed_id,
      ...target,
      cron: input.cron.trim(),
      timezone,
      recipients: JSON.stringify(input.recipients ?? []),
      format: input.format ?? "report",
      subject: input.subject ?? null,
      variables: input.variables ? JSON.stringify(input.variables) : null,
      paused,
      nextRunAt: nextRun,
      linkBase,
    }),
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

export async function getSchedule(scope: ScheduleScope, id: string): Promise<{ schedule: Schedule; runs: Run[] }> {
  const [[row], runs, counts] = await scope.db.batch([
    repo.visibleSchedule(scope.db, id, scope.accessGroupId),
    repo.recentRuns(scope.db, id, RECENT_RUNS),
    repo.recentRunJobCounts(scope.db, id, RECENT_RUNS),
  ]);
  if (!row) throw notFound(id);
  return { schedule: view(row), runs: runs.map((run) => runView(run, counts)) };
}

/**
 * Each given field replaces the stored one; giving `provided_id` or `group_tag` replaces the
 * target. A new cron, time zone or un-pausing starts counting from now: slots missed while
 * paused are never sent.
 */
export async function updateSchedule(scope: ScheduleScope, input: UpdateScheduleInput, linkBase: string, now = new Date()): Promise<Schedule> {
  const [current] = await repo.visibleSchedule(scope.db, input.id, scope.accessGroupId);
  if (!current) throw notFound(input.id);
  const cron = input.cron?.trim() ?? current.cron;
  const timezone = input.timezone ?? current.timezone;
  const paused = input.paused ?? current.paused;
  const timingChanged = cron !== current.cron || timezone !== current.timezone || paused !== current.paused;
  const nextRun = paused ? null : timingChanged || current.nextRunAt === null ? nextRunAt(cron, timezone, now) : current.nextRunAt;

  const retarget = input.provided_id !== undefined || input.group_tag !== undefined;
  const embedId = input.dashboard_embed_id ?? current.dashboardEmbedId;
  const target = await resolveReferences(scope, {
    embedId,
    providedId: retarget ? (input.provided_id ?? null) : current.providedId,
    groupTag: retarget ? (input.group_tag ?? null) : current.groupTag,
  });
  const [updated, [row]] = await scope.db.batch([
    repo.updateSchedule(scope.db, input.id, scope.accessGroupId, {
      dashboardEmbedId: embedId,
      ...target,
      cron,
      timezone,
      recipients: input.recipients !== undefined ? JSON.stringify(input.recipients) : current.recipients,
      format: input.format ?? current.format,
      subject: input.subject !== undefined ? input.subject : current.subject,
      variables: input.variables !== undefined ? (input.variables === null ? null : JSON.stringify(input.variables)) : current.variables,
      paused,
      nextRunAt: nextRun,
      linkBase,
    }),
    repo.scheduleById(scope.db, input.id),
  ]);
  if (updated.length === 0 || !row) throw notFound(input.id);
  return view(row);
}

export async function deleteSchedule(scope: ScheduleScope, id: string): Promise<void> {
  const deleted = await repo.deleteSchedule(scope.db, id, scope.accessGroupId);
  if (deleted.length === 0) throw notFound(id);
}

// ---- runs ---------------------------------------------------------------------------------

type ClaimedRun = Pick<repo.RunRow, "id" | "scheduleId">;

/** A run with what it delivers: its schedule as it is now (none if deleted meanwhile) and the customers it targets. */
interface LoadedRun {
  run: ClaimedRun;
  schedule: repo.ScheduleRow | undefined;
  targets: repo.TargetRow[];
}

/** The reads a run's fan-out needs, to go in a batch. */
const runReads = (db: Database, scheduleId: string) => [repo.scheduleById(db, scheduleId), repo.targets(db, scheduleId)] as const;

/**
 * Starts one delivery job per recipient of every customer the runs target (each customer
 * with its own data). Customers without recipients are counted in `skipped`; a delivery
 * that cannot be started counts in `notStarted`. The caller records the tallies.
 */
async function fanOut(db: Database, env: Env, runs: LoadedRun[]): Promise<repo.FanOutTally[]> {
  const tallies = runs.map(() => ({ skipped: 0, notStarted: 0, jobIds: [] as (string | null)[] }));
  const work: { run: number; slot: number; delivery: Delivery }[] = [];
  runs.forEach(({ schedule, targets }, i) => {
    if (!schedule) return; // deleted meanwhile
    const fixed = JSON.parse(schedule.recipients) as string[];
    const variables = schedule.variables === null ? null : (JSON.parse(schedule.variables) as Record<string, unknown>);
    for (const target of targets) {
      const recipients = normaliseEmails(fixed.length > 0 ? fixed : (JSON.parse(target.emails) as string[]));
      if (recipients.length === 0) tallies[i].skipped++;
      for (const email of recipients) {
        work.push({
          run: i,
          slot: tallies[i].jobIds.push(null) - 1,
          delivery: {
            accessGroupId: schedule.accessGroupId,
            linkBase: schedule.linkBase,
            format: schedule.format,
            providedId: target.providedId,
            embedId: schedule.dashboardEmbedId,
            email,
            subject: schedule.subject,
            variables,
          },
        });
      }
    }
  });

  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const item = work[next++];
      try {
        tallies[item.run].jobIds[item.slot] = await startDelivery(db, env, item.delivery);
      } catch (error) {
        tallies[item.run].notStarted++;
        const reason = error instanceof ApiError ? error.code : errorDetail(error);
        log("warn", "scheduled delivery not started", { schedule_id: runs[item.run].run.scheduleId, run_id: runs[item.run].run.id, provided_id: item.delivery.providedId, reason });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FAN_OUT_CONCURRENCY, work.length) }, worker));
  return tallies.map((t) => ({ ...t, jobIds: t.jobIds.filter((id): id is string => id !== null) }));
}

/**
 * `run now`: a separate run with trigger `manual` in the current minute, never a claimed
 * slot. Two D1 trips besides the jobs': the run is inserted (only for a schedule the caller
 * may see) and read with its schedule and targets in one batch; it is recorded and read back
 * in another.
 */
export async function runNow(db: Database, env: Env, scope: { accessGroupId: number | null; id: string }, now = new Date()): Promise<Run> {
  const [inserted, schedule, targets] = await db.batch([
    repo.insertManualRun(db, scope.id, scope.accessGroupId, slotString(minuteOf(now))),
    ...runReads(db, scope.id),
  ]);
  const [run] = inserted;
  if (!run) throw notFound(scope.id);
  const [tally] = await fanOut(db, env, [{ run, schedule: schedule[0], targets }]);
  const [, [stored], counts] = await db.batch([repo.finishFanOut(db, run.id, tally), repo.runById(db, run.id), repo.runJobCounts(db, run.id)]);
  return runView(stored, counts);
}

export interface TickSummary {
  tick: string;
  due: number;
  claimed: number;
  deliveries: number;
  round_trips: number;
  ms: number;
}

/**
 * The scheduler's tick (the Worker's `scheduled` handler, every minute). For each due
 * schedule it claims the most recent slot up to this minute — only that one, so slots
 * missed during downtime are not sent in a burst — and moves `next_run_at` past this
 * minute, in one D1 batch. The claim is an insert guarded by a unique key, so overlapping
 * or repeated ticks claim each slot once; only the tick that claimed a slot starts its jobs.
 */
export async function runDueSchedules(env: Env, scheduledTime: number): Promise<TickSummary> {
  setLogLevel(env.LOG_LEVEL);
  const started = Date.now();
  const counter = new RoundTripCounter();
  const db = createDatabase(env.DB, counter);
  const tick = minuteOf(scheduledTime);
  const due = await repo.dueSchedules(db, slotString(tick), MAX_RUNS_PER_TICK);

  const claims: ReturnType<typeof repo.claimSlot>[] = [];
  const moves: ReturnType<typeof repo.advance>[] = [];
  for (const schedule of due) {
    const cron = new CronSchedule(schedule.cron, schedule.timezone);
    const from = schedule.nextRunAt as string;
    const slot = cron.latestBetween(new Date(from), tick);
    const next = cron.next(tick);
    if (slot) claims.push(repo.claimSlot(db, schedule.id, slotString(slot), from));
    moves.push(repo.advance(db, schedule.id, from, next ? slotString(next) : null));
  }
  // Claims first: each is checked against the schedule as it still is, then it moves on.
  const results = due.length > 0 ? ((await db.batch([...claims, ...moves] as never)) as unknown[]) : [];
  const claimed = (results.slice(0, claims.length) as ClaimedRun[][]).flat();
  let deliveries = 0;
  if (claimed.length > 0) {
    const loaded = (await db.batch(claimed.flatMap((run) => runReads(db, run.scheduleId)) as never)) as unknown[][];
    const runs = claimed.map((run, i) => ({ run, schedule: (loaded[2 * i] as repo.ScheduleRow[])[0], targets: loaded[2 * i + 1] as repo.TargetRow[] }));
    const tallies = await fanOut(db, env, runs);
    await db.batch(claimed.map((run, i) => repo.finishFanOut(db, run.id, tallies[i])) as never);
    deliveries = tallies.reduce((sum, t) => sum + t.jobIds.length + t.notStarted, 0);
  }

  const summary = { tick: slotString(tick), due: due.length, claimed: claimed.length, deliveries, round_trips: counter.count, ms: Date.now() - started };
  log(due.length > 0 ? "info" : "debug", "scheduler tick", { ...summary });
  return summary;
}
