import { gte, lt } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { jobs } from "../db/schema";
import { sqlSecondsAgo } from "../db/time";
import type { Env } from "../env";
import { errorDetail, log } from "../lib/log";
import { FAILURE_REASONS, transitionWhere, type JobRow } from "./job-state";
import type { DeliveryMessage } from "./run/message";
import { announceEnd, MAX_ATTEMPTS } from "./run/outcome";

/** How long a job may sit in `rendering` or `sending` before the sweep takes it over. */
export const STUCK_AFTER_SECONDS = 300;

/** The queue consumer sweeps at most this often per isolate, so the sweep stays off the hot path. */
const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

/**
 * Finds jobs stuck beyond the bound (a consumer that died mid-attempt, a lost message):
 * `sending` ones end `failed` with "delivery outcome unknown" (the e-mail may have left:
 * never resent); `rendering` ones go back to the queue, or fail when their attempts are
 * used up; `queued` ones are enqueued again. Returns the jobs it ended and re-enqueued.
 */
export async function sweepStuckJobs(
  db: Database,
  env: Env,
  olderThanSeconds = STUCK_AFTER_SECONDS,
): Promise<{ ended: JobRow[]; requeued: JobRow[] }> {
  const stale = lt(jobs.updatedAt, sqlSecondsAgo(olderThanSeconds));
  const [unknown, exhausted, stuck, lost] = await db.batch([
    transitionWhere(db, stale, ["sending"], "failed", { error: FAILURE_REASONS.outcome_unknown }),
    transitionWhere(db, stale, ["rendering"], "failed", { where: gte(jobs.attempts, MAX_ATTEMPTS), error: FAILURE_REASONS.render_failed }),
    transitionWhere(db, stale, ["rendering"], "queued", { where: lt(jobs.attempts, MAX_ATTEMPTS), error: null }),
    transitionWhere(db, stale, ["queued"], "queued"),
  ]);
  for (const job of unknown) log("error", "delivery outcome unknown: job stuck while sending", { job_id: job.id, since: job.updatedAt });
  const requeued = [...stuck, ...lost];
  for (const job of requeued) {
    log("warn", "stuck job queued again", { job_id: job.id, attempts: job.attempts });
    await env.DELIVERY_QUEUE.send({ jobId: job.id, after: job.attempts } satisfies DeliveryMessage);
  }
  return { ended: [...unknown, ...exhausted], requeued };
}

/** The stuck-job sweep on its own (the every-minute Cron Trigger), so it runs with no traffic too. */
export function sweepStuckDeliveries(env: Env): Promise<void> {
  lastSweep = Date.now();
  return sweep(createDatabase(env.DB), env);
}

/** The sweep from the queue consumer, when this isolate has not swept for a while: in `waitUntil` where there is one. */
export async function sweepWhenDue(db: Database, env: Env, ctx?: ExecutionContext): Promise<void> {
  if (Date.now() - lastSweep <= SWEEP_EVERY_MS) return;
  lastSweep = Date.now();
  const work = sweep(db, env);
  if (ctx) ctx.waitUntil(work);
  else await work;
}

async function sweep(db: Database, env: Env): Promise<void> {
  try {
    const { ended } = await sweepStuckJobs(db, env);
    for (const job of ended) await announceEnd(env, job);
  } catch (error) {
    log("error", "stuck-job sweep failed", { detail: errorDetail(error) });
  }
}
