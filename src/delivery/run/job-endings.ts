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

/** Jobs someone here waits for → how many wait, and the ending once it is known. */
const board = new Map<string, { watchers: number; ending?: JobEnding }>();

/** Notes how job `jobId` ended, for this isolate's waiters; nothing is kept when nobody waits. */
export function jobEnded(jobId: string, ending: JobEnding): void {
  const entry = board.get(jobId);
  if (entry) entry.ending = ending;
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
  /** Lets go (the note goes with the last watcher). */
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
      if (entry.watchers === 0) board.delete(jobId);
    },
  };
}

/**
 * Jobs with an attempt in progress in this isolate → how many, and whether one has its file
 * in hand (storing it and recording the end: the ending is milliseconds away).
 */
const attempted = new Map<string, { count: number; fileInHand: boolean }>();

/**
 * Runs an attempt of job `jobId`, known to this isolate's waiters while it runs: they stop
 * looking at the row when it starts, and look again when it leaves without an ending (its
 * job retried later, perhaps elsewhere).
 */
export async function attemptingHere<T>(jobId: string, run: () => Promise<T>): Promise<T> {
  const entry = attempted.get(jobId) ?? { count: 0, fileInHand: false };
  entry.count++;
  attempted.set(jobId, entry);
  try {
    return await run();
  } finally {
    entry.count--;
    if (entry.count === 0) attempted.delete(jobId);
  }
}

/** Notes that an attempt here has job `jobId`'s file in hand: its waiters look more often now. */
export function fileInHand(jobId: string): void {
  const entry = attempted.get(jobId);
  if (entry) entry.fileInHand = true;
}

/** Whether an attempt of the job runs in this isolate: it notes its ending here. */
export function isAttemptedHere(jobId: string): boolean {
  return attempted.has(jobId);
}

/** Whether an attempt here has the job's file in hand (fileInHand). */
export function hasFileInHand(jobId: string): boolean {
  return attempted.get(jobId)?.fileInHand === true;
}

/** Jobs watched in this isolate (tests check that none is left behind). */
export function watchedJobCount(): number {
  return board.size;
}
