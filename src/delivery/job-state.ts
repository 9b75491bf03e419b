import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { jobs } from "../db/schema";
import { sqlNow } from "../db/time";
import type { JobStatus } from "../db/job-vocabulary";

/**
 * The delivery job state machine: every status a job can have, every move between them,
 * and the one guarded compare-and-set that performs a move. Nothing else writes `status`.
 *
 *   queued ──▶ rendering ──▶ done                 (download: file stored)
 *     ▲            │  ╲
 *     └── retry ───┘   ╲──▶ sending ──▶ done       (e-mail: claimed, then sent)
 *                  │            │
 *                  ▼            ▼
 *                failed ◀───────┘                 (final failure, or outcome unknown)
 *
 * Once a job is `sending` an e-mail may have left: it goes back to `queued` only when the
 * send is known to have failed, and is never claimed again otherwise (at most one e-mail).
 *
 * A job is born `queued`, or `rendering` with its first attempt when the API call that
 * creates it runs that attempt (delivery/run/attempt.ts): the insert is then the claim.
 */

/**
 * Allowed moves, `from → [to]`. `rendering → rendering` is a redelivered message taking
 * over; `queued → queued` is the sweep enqueueing again a job whose message was lost.
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ["queued", "rendering", "failed"],
  rendering: ["rendering", "queued", "sending", "done", "failed"],
  sending: ["queued", "done", "failed"],
  done: [],
  failed: [],
};

function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export class TransitionNotAllowed extends Error {
  constructor(from: readonly JobStatus[], to: JobStatus) {
    super(`job transition ${from.join("|")} → ${to} is not in the table`);
  }
}

/** The reasons a client may see in `job.error`: short and stable. Details go to the log. */
export const FAILURE_REASONS = {
  render_failed: "The dashboard could not be captured.",
  incomplete_capture: "The dashboard did not render completely.",
  not_a_dashboard: "The page to capture was not a rendered dashboard.",
  all_panels_failed: "Every data panel of the dashboard failed to load.",
  customer_deleted: "The customer was deleted before the job ran.",
  dashboard_deleted: "The dashboard was deleted before the job ran.",
  no_dashboard_version: "The dashboard has no version to render.",
  report_deleted: "The saved report was deleted before the job ran.",
  // Shown only when the failure carries no message of its own (JobFailure `shown`).
  report_unavailable: "The saved report could not be run.",
  send_failed: "The e-mail could not be sent.",
  outcome_unknown: "delivery outcome unknown",
  not_started: "The job could not be started.",
} as const;
export type FailureReason = keyof typeof FAILURE_REASONS;

/**
 * A failure of an attempt with its client-facing reason; `final` failures are not retried.
 * `shown` replaces the reason's fixed text in `job.error` where the cause has a message made
 * for clients (a saved report broken by update_blueprint: the report builder's 422 message).
 */
export class JobFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    readonly final: boolean,
    readonly detail?: string,
    readonly shown?: string,
  ) {
    super(detail ?? FAILURE_REASONS[reason]);
  }
}

export type JobRow = typeof jobs.$inferSelect;

export interface TransitionOptions {
  /** Other columns set in the same statement (status, updated_at and error are the transition's own). */
  set?: Omit<SQLiteUpdateSetSource<typeof jobs>, "id" | "status" | "updatedAt" | "error">;
  /** Extra condition, e.g. on `attempts` for the stuck-job sweep. */
  where?: SQL;
  /** `error` column; omitted leaves it, null clears it. */
  error?: string | null;
}

/**
 * Moves job `id` to `to` if and only if its status is one of `from` — one
 * `UPDATE … WHERE status IN (…) RETURNING *`, so of two racing callers exactly one wins.
 * An empty result means the job was elsewhere (or gone): the caller lost the race.
 */
export function transition(db: Database, id: string, from: readonly JobStatus[], to: JobStatus, options: TransitionOptions = {}) {
  return transitionWhere(db, eq(jobs.id, id), from, to, options);
}

/** The same guarded move for every job matching `where` (the sweep). */
export function transitionWhere(db: Database, where: SQL, from: readonly JobStatus[], to: JobStatus, options: TransitionOptions = {}) {
  if (from.length === 0 || from.some((status) => !canTransition(status, to))) throw new TransitionNotAllowed(from, to);
  return db
    .update(jobs)
    .set({ ...options.set, status: to, updatedAt: sqlNow, error: options.error })
    .where(and(where, inArray(jobs.status, from), options.where))
    .returning();
}
