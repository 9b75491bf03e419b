/**
 * Download requests waiting in this isolate for a job to end learn it from the attempt that
 * ends it here, with the file in hand: no look at the job row, no R2 read. A note on a
 * board, not a promise: a promise resolved by one invocation and awaited by another crosses
 * I/O contexts (the workers test pool refuses it outright: "Cannot perform I/O on behalf of a
 * different request"), so the waiter reads the board on its own timer, which costs no I/O.
 * This is a shortcut only: waiters in other isolates, and any ending this isolate did not
 * see (a retry elsewhere, a backstop), learn it from the job row (links/download.ts).
 */
export type JobEnding =
  | { status: "done"; file: { bytes: Uint8Array<ArrayBuffer>; contentType: string; queryCache?: string; cacheReads?: string } }
  | { status: "failed"; error: string };

/**
 * Jobs someone here waits for, or whose attempt here has noted its ending → how many wait,
 * and the ending once it is known.
 */
const board = new Map<string, { watchers: number; ending?: JobEnding }>();

/**
 * Notes how job `jobId` ended, for this isolate's waiters. The note stays while the job's
 * attempt is still here (storing the file, recording the end), so a download that comes in
 * meanwhile has it at its first look; it goes with the attempt and its last watcher. Nothing
 * is kept for a job neither watched nor attempted here. Answers whether anyone waits for it.
 */
export function jobEnded(jobId: string, ending: JobEnding): boolean {
  const entry = board.get(jobId) ?? (attempted.has(jobId) ? { watchers: 0 } : undefined);
  if (!entry) return false;
  entry.ending = ending;
  board.set(jobId, entry);
  return entry.watchers > 0;
}

/** Lets go of job `jobId`'s note once nobody watches it and no attempt of it is here. */
function letGoOfNote(jobId: string): void {
  const entry = board.get(jobId);
  if (entry && entry.watchers === 0 && !attempted.has(jobId)) board.delete(jobId);
}

/**
 * How many jobs this isolate may watch while its waiters still look at the board every
 * millisecond (links/download.ts, boardWatchPause); more, and they pace themselves.
 */
export const WATCHED_ALONE = 2;

/** How long takenFromBoard waits at most: a waiter alone looks every millisecond. */
const TAKE_WAIT_MS = 5;
/**
 * How long the answers that took a file go ahead before its attempt stores it and records
 * the end. Locally the R2 and D1 simulators' work then shares two cores with `wrangler dev`'s
 * proxy carrying the answer: a PDF came 7–10 ms later without this head start (A/B in
 * docs/performance.md). On Cloudflare it costs the job's record 10 ms, never the caller.
 */
export const ANSWER_HEAD_START_MS = 10;

/** What takenFromBoard waited for: nothing (nobody waits here, or a crowd), a waiter that did not take the file, or the answers' head start. */
export type BoardHandOver = "nobody" | "crowd" | "not_taken" | "head_start";

/**
 * Resolves once every waiter here has taken job `jobId`'s ending off the board and had
 * `headStartMs` (ANSWER_HEAD_START_MS) for its answer; after TAKE_WAIT_MS when they have not
 * taken it by then (no answer to wait for); at once when nobody here waits for the job, or
 * when this isolate watches more than WATCHED_ALONE jobs (its waiters then look only every
 * 5–50 ms: waiting for them would only hold the attempt). Answers which of these it was.
 */
export async function takenFromBoard(jobId: string, headStartMs = ANSWER_HEAD_START_MS): Promise<BoardHandOver> {
  const watchers = () => board.get(jobId)?.watchers ?? 0;
  if (watchers() === 0) return "nobody";
  if (watchedJobCount() > WATCHED_ALONE) return "crowd";
  const until = Date.now() + TAKE_WAIT_MS;
  while (watchers() > 0) {
    if (Date.now() >= until) return "not_taken";
    await scheduler.wait(1);
  }
  await scheduler.wait(headStartMs);
  return "head_start";
}

/** What a waiting download holds while it watches a job on this isolate's board. */
export interface JobWatch {
  /** The job's ending once noted here. */
  ending: () => JobEnding | undefined;
  /**
   * Waits at most `ms` for news of the job here: its ending noted, or an attempt starting or
   * leaving this isolate — looked at every `tick()` ms on the caller's own timer.
   */
  news: (ms: number, tick: () => number) => Promise<void>;
  /** Lets go (the note goes with the last watcher, unless the job's attempt is still here). */
  stop: () => void;
}

/** Watches job `jobId` on this isolate's board. */
export function watchJob(jobId: string): JobWatch {
  const entry = board.get(jobId) ?? { watchers: 0 };
  entry.watchers++;
  board.set(jobId, entry);
  let stopped = false;
  return {
    ending: () => entry.ending,
    news: async (ms, tick) => {
      const until = Date.now() + ms;
      const attempted = isAttemptedHere(jobId);
      while (!entry.ending && isAttemptedHere(jobId) === attempted && Date.now() < until)
        await scheduler.wait(Math.min(tick(), until - Date.now())); // the runtime's own timer: no Node.js timer object per look
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      entry.watchers--;
      letGoOfNote(jobId);
    },
  };
}

/** Jobs with an attempt in progress in this isolate → how many. */
const attempted = new Map<string, number>();

/**
 * Runs an attempt of job `jobId`, known to this isolate's waiters while it runs: they stop
 * looking at the row when it starts, and look again when it leaves without an ending (its
 * job retried later, perhaps elsewhere).
 */
export async function attemptingHere<T>(jobId: string, run: () => Promise<T>): Promise<T> {
  attempted.set(jobId, (attempted.get(jobId) ?? 0) + 1);
  try {
    return await run();
  } finally {
    const left = (attempted.get(jobId) ?? 1) - 1;
    if (left === 0) attempted.delete(jobId);
    else attempted.set(jobId, left);
    letGoOfNote(jobId);
  }
}

/** Whether an attempt of the job runs in this isolate: it notes its ending here. */
export function isAttemptedHere(jobId: string): boolean {
  return attempted.has(jobId);
}

/** Jobs watched in this isolate (tests check that none is left behind). */
export function watchedJobCount(): number {
  let watched = 0;
  for (const entry of board.values()) if (entry.watchers > 0) watched++;
  return watched;
}

/** Jobs with a note on this isolate's board, watched or not (tests check that none is left behind). */
export function notedJobCount(): number {
  return board.size;
}
