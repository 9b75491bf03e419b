import { batchLists } from "../../db/batch";
import { createDatabase, RoundTripCounter } from "../../db/client";
import type { Env } from "../../env";
import { log, setLogLevel } from "../../lib/log";
import { CronSchedule, minuteOf, slotString } from "../cron";
import * as repo from "../repository";
import { fanOut, loadedRun, recordRun, runReads } from "./fan-out";
import { config } from "../../config";

/** Schedules started by one tick; more wait for the next minute's tick. */
const MAX_RUNS_PER_TICK = 200;

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
  setLogLevel(config(env).LOG_LEVEL);
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
  // Nothing due: no statement, no round trip.
  const [claimResults] = await batchLists(db, [claims, moves]);
  const claimed = claimResults.flat();
  let deliveries = 0;
  if (claimed.length > 0) {
    const loaded = await batchLists(
      db,
      claimed.map((run) => runReads(db, run.scheduleId)),
    );
    const runs = claimed.map((run, i) => loadedRun(run, loaded[i]));
    const tallies = await fanOut(db, env, runs);
    await batchLists(
      db,
      claimed.map((run, i) => recordRun(db, run, tallies[i])),
    );
    deliveries = tallies.reduce((sum, t) => sum + t.jobIds.length + t.notStarted, 0);
  }

  const summary = {
    tick: slotString(tick),
    due: due.length,
    claimed: claimed.length,
    deliveries,
    round_trips: counter.count,
    ms: Date.now() - started,
  };
  log(due.length > 0 ? "info" : "debug", "scheduler tick", { ...summary });
  return summary;
}
