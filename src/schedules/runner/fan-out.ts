import { normaliseEmails } from "../../customers/view";
import { batchLists, type Results } from "../../db/batch";
import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { ApiError } from "../../http/errors";
import { errorDetail, log } from "../../lib/log";
import { alertRender, evaluate, type AlertRule, type Verdict } from "./alert-rule";
import { dashboardFromReads, dashboardReads } from "../../dashboards/customer-dashboard";
import { alertWebhook, queueAlertWebhook } from "./alert-webhook";
import * as unsubscribeRepo from "../../unsubscribe/repository";
import { hashUnsubscribeToken, unsubscribeToken } from "../../unsubscribe/tokens";
import type { AlertWebhookMessage } from "../../webhooks/service";
import * as repo from "../repository";
import { startDelivery, type Delivery } from "./deliveries";
import { storedTarget } from "../../delivery/target";

/** Delivery jobs started at the same time during a fan-out. */
const FAN_OUT_CONCURRENCY = 6;

/**
 * Alert evaluations whose dashboard reads (customer chain, version, data sources: three
 * statements each) share one D1 batch, so a slot's evaluations cost a round trip per this
 * many instead of one each, and a batch stays far below D1's statements per invocation.
 */
const EVALUATIONS_PER_BATCH = 50;

export type ClaimedRun = Pick<repo.RunRow, "id" | "scheduleId" | "slot">;

/**
 * A run with what it delivers: its rule as it is now (none if deleted meanwhile), the
 * customers it targets, the addresses that unsubscribed and, for an alert, each customer's
 * last outcome.
 */
export interface LoadedRun {
  run: ClaimedRun;
  schedule: repo.ScheduleRow | undefined;
  targets: repo.TargetRow[];
  unsubscribed: { email: string }[];
  states: { customerId: number; holds: number | null }[];
}

/** The reads a run's fan-out needs, to go in a batch. */
export const runReads = (db: Database, scheduleId: string) =>
  [
    repo.scheduleById(db, scheduleId),
    repo.targets(db, scheduleId),
    repo.unsubscribed(db, scheduleId),
    repo.alertStates(db, scheduleId),
  ] as const;

/** A run with the rows `runReads` answered for it. */
export function loadedRun(run: ClaimedRun, [schedule, targets, unsubscribed, states]: Results<ReturnType<typeof runReads>>): LoadedRun {
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
    variables: row.variables,
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
  for (let start = 0; start < work.length; start += EVALUATIONS_PER_BATCH) {
    const chunk = work
      .slice(start, start + EVALUATIONS_PER_BATCH)
      .map((item) => ({ ...item, render: alertRender(item.rule, item.target.providedId) }));
    const reads = await batchLists(
      db,
      chunk.map(({ render }) => dashboardReads(db, render)),
    );
    await inPool(
      chunk.map((item, k) => ({ ...item, rows: reads[k] })),
      FAN_OUT_CONCURRENCY,
      async ({ i, rule, target, previous, render, rows }) => {
        const verdict = await evaluate(env, rule, target.providedId, () => dashboardFromReads(render, rows), previous);
        verdicts[i]?.set(target.customerId, verdict);
      },
    );
  }
  return verdicts;
}

/** Who gets a rule's e-mail for one customer: its recipients, else (schedules, and alerts without a webhook) the customer's own. */
function recipientsOf(schedule: repo.ScheduleRow, fixed: string[], target: repo.TargetRow): string[] {
  if (fixed.length > 0) return fixed;
  if (schedule.kind === "alert" && schedule.callbackUrl) return [];
  return target.emails;
}

/** What a run started, and for an alert what each customer's evaluation found. */
export interface RunTally extends repo.FanOutTally {
  evaluations: (Omit<repo.EvaluationValues, "runId" | "alertId" | "slot"> & { providedId: string })[];
}

/**
 * Starts one delivery job per recipient of every customer the runs target (each customer
 * with its own data); for an alert only for the customers it notifies at this slot (and
 * their webhook). Customers without recipients, and each address that unsubscribed, count
 * in `skipped`; a delivery that cannot be started counts in `notStarted`. Each e-mail's
 * unsubscribe link is stored (hashed) before any job starts. The caller records the tallies.
 */
export async function fanOut(db: Database, env: Env, runs: LoadedRun[]): Promise<RunTally[]> {
  const verdicts = await evaluateAlerts(db, env, runs);
  const tallies = runs.map(() => ({
    skipped: 0,
    notStarted: 0,
    jobIds: [] as (string | null)[],
    evaluations: [] as RunTally["evaluations"],
  }));
  const notified = runs.map(() => new Set<number>());
  const work: { run: number; slot: number; customerId: number; delivery: Delivery }[] = [];
  const hooks: { run: number; customerId: number; message: AlertWebhookMessage }[] = [];
  runs.forEach(({ run, schedule, targets, unsubscribed }, i) => {
    if (!schedule) return; // deleted meanwhile
    const fixed = schedule.recipients;
    const left = new Set(unsubscribed.map((u) => u.email));
    const variables = schedule.variables;
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
            locale: schedule.locale,
            theme: schedule.themeName,
            format: schedule.format,
            pdf: schedule.pdf,
            providedId: target.providedId,
            target: storedTarget(schedule),
            email,
            // An alert's subject is, unless set, the sentence that says why.
            subject: schedule.subject ?? (verdict ? verdict.headline : null),
            variables,
            ...(verdict ? { headline: verdict.headline } : {}),
            environment: schedule.environment,
          },
        });
      }
    }
  });

  await storeUnsubscribeLinks(
    db,
    env,
    work.map((w) => w.delivery),
  );
  await inPool(work, FAN_OUT_CONCURRENCY, async (item) => {
    try {
      tallies[item.run].jobIds[item.slot] = await startDelivery(db, env, item.delivery);
      notified[item.run].add(item.customerId);
    } catch (error) {
      tallies[item.run].notStarted++;
      const reason = error instanceof ApiError ? error.code : errorDetail(error);
      log("warn", "scheduled delivery not started", {
        schedule_id: runs[item.run].run.scheduleId,
        run_id: runs[item.run].run.id,
        provided_id: item.delivery.providedId,
        reason,
      });
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
  const statements: ReturnType<typeof unsubscribeRepo.insertTokens>[] = [];
  for (let at = 0; at < all.length; at += 33) statements.push(unsubscribeRepo.insertTokens(db, all.slice(at, at + 33)));
  await batchLists(db, [statements]);
}

/** The statements that record a run's tallies (and an alert's evaluations). */
export function recordRun(db: Database, run: ClaimedRun, tally: RunTally) {
  const rows = tally.evaluations.map(({ providedId: _, ...e }) => ({ ...e, alertId: run.scheduleId, runId: run.id, slot: run.slot }));
  // D1 binds at most 100 values per statement: 7 per row.
  const inserts = [];
  for (let at = 0; at < rows.length; at += 14) inserts.push(repo.insertEvaluations(db, rows.slice(at, at + 14)));
  return [repo.finishFanOut(db, run.id, tally), ...inserts];
}
