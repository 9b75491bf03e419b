import { createDatabase, type Database } from "../../db/client";
import type { Env } from "../../env";
import { errorDetail, log } from "../../lib/log";
import { deliveryEffects, type DeliveryEffects } from "./effects";
import { runJob, type FirstAttempt } from "./job";
import { attemptingHere, jobEnded } from "./job-endings";
import { pageMessage, type DeliveryMessage, type JobMessage, type JobPage } from "./message";
import { announceEnd, recordFailure } from "./outcome";
import { timedAttempt } from "./timing";

/** What an attempt left: nothing more to do, another attempt due, or the job failed for good. */
export type AttemptOutcome = "finished" | "retry" | "failed";

/** Backoff before attempt `attempt + 1`: 5 s after the first failure, 10 s after the second. */
export function nextAttemptDelaySeconds(attempt: number): number {
  return 5 * 2 ** (Math.max(1, attempt) - 1);
}

/**
 * One attempt of a job, its end recorded and announced (webhook). Whatever fails inside —
 * a thrown error, a browser gone mid-capture, a capture past its deadline, a lost I/O
 * context — is recorded here as the attempt's failure, so the job is retried on the backoff.
 * Throws only when the failure itself cannot be recorded (the database is unreachable): the
 * caller's delivery must then come again.
 */
export async function attemptJob(
  db: Database,
  env: Env,
  effects: DeliveryEffects,
  message: JobMessage,
  attempt: number,
  firstAttempt?: FirstAttempt,
): Promise<AttemptOutcome> {
  // While it runs, this isolate's waiting downloads watch for its ending (job-endings.ts) instead of the job row.
  return attemptingHere(message.jobId, async () => {
    try {
      const done = await timedAttempt(message.jobId, effects, (timed) => runJob(db, env, timed, message, attempt, firstAttempt));
      if (done) await announceEnd(env, done);
      return "finished";
    } catch (error) {
      const failure = await recordFailure(db, message.jobId, attempt, error);
      if (failure.outcome === "failed") {
        jobEnded(message.jobId, { status: "failed", error: failure.job.error ?? "rendering failed" });
        await announceEnd(env, failure.job);
      }
      return failure.outcome === "moved_on" ? "finished" : failure.outcome;
    }
  });
}

/**
 * A job's first attempt, run in the background of the API call that created it (its
 * `waitUntil`): the job was born claimed and its dashboard read in the call's batch, so
 * nothing stands between the request and the panels' queries — no queue hand-over, no
 * claim. A failed attempt queues the next one with the usual backoff. If the isolate dies
 * mid-attempt, the backstop message sent with the job takes over (run/start.ts,
 * BACKSTOP_DELAY_SECONDS).
 */
export async function runFirstAttempt(env: Env, first: FirstAttempt, page: JobPage): Promise<void> {
  const jobId = first.job.id;
  let outcome: AttemptOutcome;
  try {
    outcome = await attemptJob(createDatabase(env.DB), env, deliveryEffects(env), { jobId, page }, 1, first);
  } catch (error) {
    log("error", "first attempt could not be recorded; the backstop takes the job over", { job_id: jobId, detail: errorDetail(error) });
    return;
  }
  if (outcome === "retry") await queueNextAttempt(env, jobId, page, 1);
}

/**
 * Queues the attempt after `attempt` (a plain message, with the usual backoff) for a job
 * that failed outside an ordinary queue message: a first attempt, or a backstop's (a
 * backstop message would not claim the job again). If the queue refuses, the stuck-job
 * sweep finds the job `queued` later.
 */
export async function queueNextAttempt(env: Env, jobId: string, page: JobPage | undefined, attempt: number): Promise<void> {
  try {
    await env.DELIVERY_QUEUE.send({ jobId, after: attempt, page: page && pageMessage(page) } satisfies DeliveryMessage, {
      delaySeconds: nextAttemptDelaySeconds(attempt),
    });
  } catch (error) {
    log("error", "next attempt not queued; the stuck-job sweep will queue it", {
      job_id: jobId,
      attempt: attempt + 1,
      detail: errorDetail(error),
    });
  }
}
