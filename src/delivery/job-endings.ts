/**
 * Download requests waiting in this isolate for a job to end learn it from the attempt that
 * ends it here — with the file in hand, so the download needs neither another look at the
 * job nor an R2 read. A note on a board, not a promise: a promise resolved by one request
 * and awaited by another would run the waiter's code in the wrong request (Workers refuse
 * its I/O), so the waiter reads the board on its own timer, and only while an attempt of the
 * job runs here (it then need not look at the database at all). Waiters in other isolates, or
 * an ending this isolate did not see, are served by their look at the job: this is only a
 * shortcut, never the only way to learn that a job ended.
 */
export type JobEnding = { status: "done"; file: { bytes: Uint8Array<ArrayBuffer>; contentType: string; queryCache?: string } } | { status: "failed" };

/** Jobs someone here waits for → how many wait, and the ending once it is known. */
const board = new Map<string, { watchers: number; ending?: JobEnding }>();

/** Notes how job `jobId` ended, for this isolate's waiters; nothing is kept when nobody waits. */
export function jobEnded(jobId: string, ending: JobEnding): void {
  const entry = board.get(jobId);
  if (entry) entry.ending = ending;
}

/** Watches job `jobId`: `ending()` is its ending once noted here; `stop()` lets go (the note goes with the last watcher). */
export function watchJob(jobId: string): { ending: () => JobEnding | undefined; stop: () => void } {
  const entry = board.get(jobId) ?? { watchers: 0 };
  entry.watchers++;
  board.set(jobId, entry);
  let stopped = false;
  return {
    ending: () => entry.ending,
    stop: () => {
      if (stopped) return;
      stopped = true;
      if (--entry.watchers === 0) board.delete(jobId);
    },
  };
}

/** Jobs with an attempt in progress in this isolate → how many. */
const attempted = new Map<string, number>();

/** Runs an attempt of job `jobId`, known to this isolate's waiters while it runs. */
export async function attemptingHere<T>(jobId: string, run: () => Promise<T>): Promise<T> {
  attempted.set(jobId, (attempted.get(jobId) ?? 0) + 1);
  try {
    return await run();
  } finally {
    const left = attempted.get(jobId)! - 1;
    if (left === 0) attempted.delete(jobId);
    else attempted.set(jobId, left);
  }
}

/**
 * Whether an attempt of the job runs in this isolate: its waiters need not look at the
 * job meanwhile, as the attempt notes its ending here (or, retried elsewhere, stops running here).
 */
export function isAttemptedHere(jobId: string): boolean {
  return attempted.has(jobId);
}

/** Jobs watched in this isolate (tests check that none is left behind). */
export function watchedJobCount(): number {
  return board.size;
}
