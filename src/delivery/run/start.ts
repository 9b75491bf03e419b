import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { errorDetail, log } from "../../lib/log";
import { FAILURE_REASONS, transition } from "../job-state";
import { runFirstAttempt } from "./attempt";
import { BACKSTOP_DELAY_SECONDS, type FirstAttempt } from "./job";
import { pageMessage, type DeliveryMessage, type JobPage } from "./message";

/** Where a job starts. */
export interface StartScope {
  db: Database;
  env: Env;
  /**
   * The request's `waitUntil`, set where someone waits for the job (the API): the job's
   * first attempt then runs in the background of that call instead of behind a queue
   * hand-over. Without it (scheduled runs) the job is queued, and the queue paces the work.
   */
  background?: (work: Promise<unknown>) => void;
}

/** A job just inserted: what it renders, and its first attempt when the scope runs it (the job was then born claimed). */
export interface NewJob {
  id: string;
  page: JobPage;
  firstAttempt?: FirstAttempt;
}

/**
 * Starts an inserted job: its first attempt at once where the scope runs it, with a
 * held-back backstop message; otherwise a queue message. If the queue refuses a job that
 * nothing runs yet, the job is failed at once — never left for the sweep to send later.
 */
export async function startJob(scope: StartScope, { id, page, firstAttempt }: NewJob): Promise<void> {
  try {
    if (scope.background && firstAttempt) {
      scope.background(runFirstAttempt(scope.env, firstAttempt, page));
      await scope.env.DELIVERY_QUEUE.send({ jobId: id, after: 1, page: pageMessage(page), backstop: true } satisfies DeliveryMessage, {
        delaySeconds: BACKSTOP_DELAY_SECONDS,
      }).catch((error) => {
        // The attempt runs; were it to die too, the stuck-job sweep queues the job again.
        log("warn", "backstop message not queued", { job_id: id, detail: errorDetail(error) });
      });
      return;
    }
    await scope.env.DELIVERY_QUEUE.send({ jobId: id, page: pageMessage(page) } satisfies DeliveryMessage);
  } catch (error) {
    await failUnstarted(scope.db, id);
    throw error;
  }
}

/** Fails a job that could not be started (e.g. the link its e-mail carries was not stored): it must never send later. */
export async function failUnstarted(db: Database, id: string): Promise<void> {
  await transition(db, id, ["queued", "rendering"], "failed", { error: FAILURE_REASONS.not_started });
}
