import type { Run } from "./schemas";
import type * as repo from "./repository";

/** A run whose fan-out never finished (the Worker died meanwhile) counts as failed after this. */
const STALE_FAN_OUT_MS = 15 * 60_000;

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
    job_ids: run.jobIds,
    skipped: run.skipped,
  };
}
