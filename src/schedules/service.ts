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
import { evaluate, type AlertRule, type Verdict } from "../alerts/evaluate";
import { alertNotFound } from "../alerts/not-found";
import { alertWebhook, queueAlertWebhook } from "../alerts/webhook";
import * as unsubscribeRepo from "../unsubscribe/repository";
import { hashUnsubscribeToken, unsubscribeToken } from "../unsubscribe/tokens";
import type { AlertWebhookMessage } from "../webhooks/service";

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

export function view(row: repo.ScheduleRow): Schedule {
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
    source: row.source,
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

export function runView(run: repo.RunRow, counts: repo.RunJobCount[]): Run {
  return {
    slot: run.slot,
    trigger: run.trigger,
    status: runStatus(run, counts),
    job_ids: JSON.parse(run.jobIds) as string[],
    skipped: run.skipped,
  };
}

/** The next slot strictly after the current minute; a schedule that never fires again is refused. */
export function nextRunAt(cron: string, timezone: string, now: Date): string {
  const next = new CronSchedule(cron, timezone).next(minuteOf(now));
  if (!next) throw new ApiError("validation_error", "cron: never matches a future date in this time zone.", "cron");
  return slotString(next);
}

const notFound = (id: string) => new ApiError("schedule_not_found", `Report schedule '${id}' does not exist.`, "id");

/**
 * Resolves the target and checks the dashboard (and, for an alert, that its panel is a data
 * panel of the version its e-mail shows): 404s before 422s, as everywhere. One D1 round trip.
 */
export async function resolveReferences(
  scope: ScheduleScope,
  refs: { embedId: string; providedId: string | null; groupTag: string | null; panelId?: string },
): Promise<{ customerId: number | null; groupTagId: number | null }> {
  const { db, accessGroupId } = scope;
  const [customer, dashboard, tag, version] = await db.batch([
    repo.visibleCustomerId(db, refs.providedId ?? "", accessGroupId),
    repo.dashboardByEmbedId(db, refs.embedId),
    repo.groupTagByKey(db, repo.tagKey(refs.groupTag ?? "")),
    repo.chooseVersion(db, refs.panelId === undefined ? "" : refs.embedId, ["email", "production"], true),
  ]);
  if (refs.providedId !== null && customer.length === 0) {
    throw customerNotFound(refs.providedId);
  }
  if (dashboard.length === 0) throw dashboardNotFound(refs.embedId, "dashboard_embed_id");
  if (refs.panelId !== undefined) {
    const definition = version[0]?.definition;
    const panels = definition ? (JSON.parse(definition) as { panels: { id: string; type: string }[] }).panels : [];
    if (!panels.some((p) => p.id === refs.panelId && p.type !== "text")) {
      throw new ApiError("panel_not_found", `Dashboard '${refs.embedId}' has no data panel '${refs.panelId}'.`, "panel_id");
    }
  }
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

export async function getSchedule(scope: ScheduleScope, id: string): Promise<{ schedule: Schedule; unsubscribed: string[]; runs: Run[] }> {
  const [[row], unsubscribed, runs, counts] = await scope.db.batch([
    repo.visibleSchedule(scope.db, id, scope.accessGroupId),
    unsubscribeRepo.unsubscribedOf(scope.db, id),
    repo.recentRuns(scope.db, id, RECENT_RUNS),
    repo.recentRunJobCounts(scope.db, id, RECENT_RUNS),
  ]);
  if (!row) throw notFound(id);
  return { schedule: view(row), unsubscribed: unsubscribed.map((u) => u.email), runs: runs.map((run) => runView(run, counts)) };
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

type ClaimedRun = Pick<repo.RunRow, "id" | "scheduleId" | "slot">;

/**
 * A run with what it delivers: its rule as it is now (none if deleted meanwhile), the
 * customers it targets, the addresses that unsubscribed and, for an alert, each customer's
 * last outcome.
 */
interface LoadedRun {
  run: ClaimedRun;
  schedule: repo.ScheduleRow | undefined;
  targets: repo.TargetRow[];
  unsubscribed: { email: string }[];
  states: { customerId: number; holds: number | null }[];
}

/** The reads a run's fan-out needs, to go in a batch. */
const runReads = (db: Database, scheduleId: string) =>
  [repo.scheduleById(db, scheduleId), repo.targets(db, scheduleId), repo.unsubscribed(db, scheduleId), repo.alertStates(db, scheduleId)] as const;
const RUN_READS = 4;

function loadedRun(run: ClaimedRun, rows: unknown[]): LoadedRun {
  const [schedule, targets, unsubscribed, states] = rows as [repo.ScheduleRow[], repo.TargetRow[], { email: string }[], LoadedRun["states"]];
  return { run, schedule: schedule[0], targets, unsubscribed, states };
}

/** Runs `fn` over `items`, at most `concurrency` at a time. */
async function inPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** An alert row as the evaluator's rule. */
function alertRule(row: repo.ScheduleRow): AlertRule {
  return {
    id: row.id,
    accessGroupId: row.accessGroupId,
    dashboardEmbedId: row.dashboardEmbedId,
    panelId: row.panelId ?? "",
    column: row.alertColumn,
    op: row.conditionOp ?? "gt",
    threshold: row.conditionValue ?? 0,
    notify: row.notify ?? "on_change",
    variables: row.variables === null ? null : (JSON.parse(row.variables) as Record<string, unknown>),
  };
}

/**
 * Alerts decide first, per target customer on its own data, who is notified at this slot
 * (the evaluations run side by side, FAN_OUT_CONCURRENCY at a time). Schedules have no verdicts.
 */
async function evaluateAlerts(db: Database, env: Env, runs: LoadedRun[]): Promise<(Map<number, Verdict> | undefined)[]> {
  const verdicts = runs.map(({ schedule }) => (schedule?.kind === "alert" ? new Map<number, Verdict>() : undefined));
  const work = runs.flatMap(({ schedule, targets, states }, i) => {
    if (!schedule || !verdicts[i]) return [];
    const rule = alertRule(schedule);
    const previous = new Map(states.map((s) => [s.customerId, s.holds === null ? null : s.holds === 1]));
    return targets.map((target) => ({ i, rule, target, previous: previous.get(target.customerId) }));
  });
  await inPool(work, FAN_OUT_CONCURRENCY, async ({ i, rule, target, previous }) => {
    verdicts[i]!.set(target.customerId, await evaluate(db, env, rule, target.providedId, previous));
  });
  return verdicts;
}

/** Who gets a rule's e-mail for one customer: its recipients, else (schedules, and alerts without a webhook) the customer's own. */
function recipientsOf(schedule: repo.ScheduleRow, fixed: string[], target: repo.TargetRow): string[] {
  if (fixed.length > 0) return fixed;
  if (schedule.kind === "alert" && schedule.callbackUrl) return [];
  return JSON.parse(target.emails) as string[];
}

/** What a run started, and for an alert what each customer's evaluation found. */
interface RunTally extends repo.FanOutTally {
  evaluations: (Omit<repo.EvaluationValues, "runId" | "alertId" | "slot"> & { providedId: string })[];
}

/**
 * Starts one delivery job per recipient of every customer the runs target (each customer
 * with its own data); for an alert only for the customers it notifies at this slot (and
 * their webhook). Customers without recipients, and each address that unsubscribed, count
 * in `skipped`; a delivery that cannot be started counts in `notStarted`. Each e-mail's
 * unsubscribe link is stored (hashed) before any job starts. The caller records the tallies.
 */
async function fanOut(db: Database, env: Env, runs: LoadedRun[]): Promise<RunTally[]> {
  const verdicts = await evaluateAlerts(db, env, runs);
  const tallies = runs.map(() => ({ skipped: 0, notStarted: 0, jobIds: [] as (string | null)[], evaluations: [] as RunTally["evaluations"] }));
  const notified = runs.map(() => new Set<number>());
  const work: { run: number; slot: number; customerId: number; delivery: Delivery }[] = [];
  const hooks: { run: number; customerId: number; message: AlertWebhookMessage }[] = [];
  runs.forEach(({ run, schedule, targets, unsubscribed }, i) => {
    if (!schedule) return; // deleted meanwhile
    const fixed = JSON.parse(schedule.recipients) as string[];
    const left = new Set(unsubscribed.map((u) => u.email));
    const variables = schedule.variables === null ? null : (JSON.parse(schedule.variables) as Record<string, unknown>);
    for (const target of targets) {
      const verdict = verdicts[i]?.get(target.customerId);
      if (verdict && !verdict.notify) continue;
      if (verdict && schedule.callbackUrl) {
        hooks.push({ run: i, customerId: target.customerId, message: alertWebhook(schedule, run, target, verdict) });
      }
      const all = normaliseEmails(recipientsOf(schedule, fixed, target));
      const recipients = all.filter((email) => !left.has(email.toLowerCase()));
      tallies[i].skipped += all.length - recipients.length;
      if (all.length === 0 && !(verdict && schedule.callbackUrl)) tallies[i].skipped++;
      for (const email of recipients) {
        work.push({
          run: i,
          slot: tallies[i].jobIds.push(null) - 1,
          customerId: target.customerId,
          delivery: {
            scheduleId: schedule.id,
            accessGroupId: schedule.accessGroupId,
            linkBase: schedule.linkBase,
            format: schedule.format,
            providedId: target.providedId,
            embedId: schedule.dashboardEmbedId,
            email,
            // An alert's subject is, unless set, the sentence that says why.
            subject: schedule.subject ?? (verdict ? verdict.headline : null),
            variables,
            ...(verdict ? { headline: verdict.headline } : {}),
          },
        });
      }
    }
  });

  await storeUnsubscribeLinks(db, env, work.map((w) => w.delivery));
  await inPool(work, FAN_OUT_CONCURRENCY, async (item) => {
    try {
      tallies[item.run].jobIds[item.slot] = await startDelivery(db, env, item.delivery);
      notified[item.run].add(item.customerId);
    } catch (error) {
      tallies[item.run].notStarted++;
      const reason = error instanceof ApiError ? error.code : errorDetail(error);
      log("warn", "scheduled delivery not started", { schedule_id: runs[item.run].run.scheduleId, run_id: runs[item.run].run.id, provided_id: item.delivery.providedId, reason });
    }
  });
  await inPool(hooks, FAN_OUT_CONCURRENCY, async (hook) => {
    if (await queueAlertWebhook(env, hook.message)) notified[hook.run].add(hook.customerId);
  });

  runs.forEach(({ targets }, i) => {
    const verdictsOfRun = verdicts[i];
    if (!verdictsOfRun) return;
    for (const target of targets) {
      const verdict = verdictsOfRun.get(target.customerId);
      if (!verdict) continue;
      tallies[i].evaluations.push({
        customerId: target.customerId,
        providedId: target.providedId,
        value: verdict.value,
        holds: verdict.holds,
        fired: notified[i].has(target.customerId),
      });
    }
  });
  return tallies.map((t) => ({ ...t, jobIds: t.jobIds.filter((id): id is string => id !== null) }));
}

/** Stores the hash of every e-mail's unsubscribe link (one D1 round trip; links already stored stay). */
async function storeUnsubscribeLinks(db: Database, env: Env, deliveries: Delivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const rows = new Map<string, { tokenHash: string; scheduleId: string; email: string }>();
  for (const d of deliveries) {
    const tokenHash = await hashUnsubscribeToken(await unsubscribeToken(env, d.scheduleId, d.email));
    rows.set(tokenHash, { tokenHash, scheduleId: d.scheduleId, email: d.email.toLowerCase() });
  }
  const all = [...rows.values()];
  // D1 binds at most 100 values per statement: 3 per row.
  const statements = [];
  for (let at = 0; at < all.length; at += 33) statements.push(unsubscribeRepo.insertTokens(db, all.slice(at, at + 33)));
  await db.batch(statements as never);
}

/** The statements that record a run's tallies (and an alert's evaluations). */
function recordRun(db: Database, run: ClaimedRun, tally: RunTally) {
  const rows = tally.evaluations.map(({ providedId: _, ...e }) => ({ ...e, alertId: run.scheduleId, runId: run.id, slot: run.slot }));
  // D1 binds at most 100 values per statement: 7 per row.
  const inserts = [];
  for (let at = 0; at < rows.length; at += 14) inserts.push(repo.insertEvaluations(db, rows.slice(at, at + 14)));
  return [repo.finishFanOut(db, run.id, tally), ...inserts];
}

/**
 * `run now`: a separate run with trigger `manual` in the current minute, never a claimed
 * slot. Two D1 trips besides the jobs': the run is inserted (only for a schedule the caller
 * may see) and read with its schedule and targets in one batch; it is recorded and read back
 * in another.
 */
export async function runNow(
  db: Database,
  env: Env,
  scope: { accessGroupId: number | null; id: string; kind?: repo.RuleKind },
  now = new Date(),
): Promise<{ run: Run; evaluations: RunTally["evaluations"]; runId: number }> {
  const kind = scope.kind ?? "schedule";
  const [inserted, ...reads] = (await db.batch([
    repo.insertManualRun(db, scope.id, scope.accessGroupId, slotString(minuteOf(now)), kind),
    ...runReads(db, scope.id),
  ] as never)) as unknown[][];
  const [run] = inserted as ClaimedRun[];
  if (!run) throw kind === "alert" ? alertNotFound(scope.id) : notFound(scope.id);
  const [tally] = await fanOut(db, env, [loadedRun(run, reads)]);
  const recorded = (await db.batch([...recordRun(db, run, tally), repo.runById(db, run.id), repo.runJobCounts(db, run.id)] as never)) as unknown[];
  const [stored, counts] = recorded.slice(-2) as [
    repo.RunRow[],
    repo.RunJobCount[],
  ];
  return { run: runView(stored[0], counts), evaluations: tally.evaluations, runId: run.id };
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
    const runs = claimed.map((run, i) => loadedRun(run, loaded.slice(RUN_READS * i, RUN_READS * (i + 1))));
    const tallies = await fanOut(db, env, runs);
    await db.batch(claimed.flatMap((run, i) => recordRun(db, run, tallies[i])) as never);
    deliveries = tallies.reduce((sum, t) => sum + t.jobIds.length + t.notStarted, 0);
  }

  const summary = { tick: slotString(tick), due: due.length, claimed: claimed.length, deliveries, round_trips: counter.count, ms: Date.now() - started };
  log(due.length > 0 ? "info" : "debug", "scheduler tick", { ...summary });
  return summary;
}
