import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { errorDetail, log } from "../../lib/log";
import { FAILURE_REASONS, JobFailure, transition, type JobRow } from "../job-state";
import type { DeliveryMessage } from "./message";

/** Attempts per job: the third failed attempt fails the job for good. */
export const MAX_ATTEMPTS = 3;

/** The pause before a failed attempt's record is written again. */
const RECORD_AGAIN_AFTER_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type FailureOutcome = { outcome: "retry" | "failed"; job: JobRow } | { outcome: "moved_on" };

/**
 * Records a failed attempt: back to `queued` while attempts remain and the failure may
 * pass, else `failed` for good. The client sees the short reason; the detail is logged.
 * A failed send leaves `sending`; any other failure leaves `rendering` — if the job is no
 * longer there (another delivery moved it on), nothing changes.
 */
export async function recordFailure(db: Database, jobId: string, attempt: number, error: unknown): Promise<FailureOutcome> {
  const failure = error instanceof JobFailure ? error : new JobFailure("render_failed", false, errorDetail(error));
  const final = failure.final || attempt >= MAX_ATTEMPTS;
  log("warn", "delivery attempt failed", { job_id: jobId, attempt, reason: failure.reason, final, detail: failure.message });
  const from = failure.reason === "send_failed" ? (["sending"] as const) : (["rendering"] as const);
  const record = () =>
    transition(db, jobId, from, final ? "failed" : "queued", { error: failure.shown ?? FAILURE_REASONS[failure.reason] });
  // A failure seen is recorded now, not left to the sweep: a write that fails is tried once more.
  const [job] = await record().catch(async (error) => {
    log("warn", "failed attempt not recorded; trying once more", { job_id: jobId, attempt, detail: errorDetail(error) });
    await sleep(RECORD_AGAIN_AFTER_MS);
    return record();
  });
  if (!job) return { outcome: "moved_on" };
  return { outcome: final ? "failed" : "retry", job };
}

/** Enqueues the completion webhook of a job that just ended, if it asked for one; never throws. */
export async function announceEnd(env: Env, job: JobRow): Promise<void> {
  const request = job.request;
  if (!request.callbackUrl) return;
  try {
    await env.DELIVERY_QUEUE.send({ webhook: job.id, attempt: 1 } satisfies DeliveryMessage);
  } catch (error) {
    log("error", "webhook could not be queued", { job_id: job.id, detail: errorDetail(error) });
  }
}
