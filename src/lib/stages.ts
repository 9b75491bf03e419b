import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Where a delivery job's time goes, stage by stage, for `npm run bench:delivery`. Each
 * attempt runs inside `timeStages`, and `stage(name)` is called when a stage ends — by the
 * attempt's edge (src/delivery/run/timing.ts), not by the job's own code. Workers' clock advances only across I/O, so computation counts towards the
 * stage whose I/O follows it. Outside `timeStages` (e.g. in tests) `stage` does nothing.
 * The last jobs' timings are kept in memory, read through a development-only route.
 */
interface Timing {
  jobId: string;
  startedAt: number;
  last: number;
  stages: Record<string, number>;
  /** When (epoch ms) each stage last ended, e.g. when a capture came back (browser_connect). */
  ends: Record<string, number>;
}

const current = new AsyncLocalStorage<Timing>();
const recent = new Map<string, Timing>();
const KEEP = 200;

export function timeStages<T>(jobId: string, run: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const timing: Timing = { jobId, startedAt: now, last: now, stages: {}, ends: {} };
  recent.delete(jobId);
  recent.set(jobId, timing);
  const oldest = recent.keys().next();
  if (recent.size > KEEP && !oldest.done) recent.delete(oldest.value);
  return current.run(timing, run);
}

/** Ends stage `name` now (a stage seen twice adds up). */
export function stage(name: string): void {
  stageParts({}, name);
}

/**
 * A job's timing (its last attempt's): when the attempt started (epoch ms), when it last
 * marked a stage, the stages in ms, and when each stage last ended (epoch ms).
 */
export function stageTimings(
  jobId: string,
): { started_at: number; ended_at: number; stages: Record<string, number>; stage_ends: Record<string, number> } | undefined {
  const timing = recent.get(jobId);
  return timing && { started_at: timing.startedAt, ended_at: timing.last, stages: { ...timing.stages }, stage_ends: { ...timing.ends } };
}

/**
 * Ends a stage whose inside was timed elsewhere (e.g. in a Durable Object): `parts` are
 * the inner stages in ms, and what remains of the time since the last mark goes to `rest`.
 */
export function stageParts(parts: Record<string, number>, rest: string): void {
  const timing = current.getStore();
  if (!timing) return;
  const now = Date.now();
  let remaining = now - timing.last;
  for (const [name, ms] of Object.entries(parts)) {
    const part = Math.min(Math.max(0, ms), remaining);
    timing.stages[name] = (timing.stages[name] ?? 0) + part;
    remaining -= part;
  }
  timing.stages[rest] = (timing.stages[rest] ?? 0) + remaining;
  timing.ends[rest] = now;
  timing.last = now;
}
