import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS, WINDOW_MS, type ApiTokenGuard } from "../../src/rate-limits/guard";
import { TokenLeases, type GuardLink } from "../../src/rate-limits/leases";
import { call, sha256, workspace } from "../helpers/api";

// This project runs with RATE_LIMIT_PER_MINUTE=40 (vitest.config.mts). Isolates spend leased
// slices of the budget in memory; across all of them no more than the limit is accepted.
const LIMIT = 40;
const guards = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace<ApiTokenGuard> }).API_TOKEN_GUARD;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Another isolate: its own lease cache, talking to the token's guard. With `earlyMs`, its
 * clock puts the window's end that much too soon, as a slow answer from the guard would (an
 * isolate counts the window's end from when it sent its request): the guard's answers with
 * the window ending sooner. Its asks for a unit of the next window (the background ones: one
 * unit, no prefetch) are recorded with the window the guard answered for.
 */
function isolate(tokenHash: string, earlyMs = 0) {
  const leases = new TokenLeases();
  const pending: Promise<unknown>[] = [];
  const counts = { critical: 0 };
  const nextWindowAsks: number[] = [];
  const link: GuardLink = {
    lease: async (request) => {
      const answer = await guards.get(guards.idFromName(tokenHash)).lease(tokenHash, request);
      if (!answer.valid) return answer;
      if (request.need.api === 1 && request.prefetch === false) nextWindowAsks.push(answer.windowStart);
      if (earlyMs === 0) return answer;
      const windowEndsInMs = Math.max(0, answer.windowEndsInMs - earlyMs);
      return { ...answer, windowEndsInMs, ttlMs: Math.min(answer.ttlMs, windowEndsInMs) };
    },
    background: (work) => void pending.push(work),
    onCriticalCall: () => void counts.critical++,
  };
  return {
    counts,
    nextWindowAsks,
    admit: () => leases.admit(tokenHash, { needsWrite: false, buckets: ["api"] }, link),
    settle: () => Promise.all(pending.splice(0)),
  };
}

/** Seconds left in the current window (windows are whole minutes of the clock). */
const secondsLeft = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/** Waits for a window with at least `seconds` left, so a burst fits in one. */
async function windowWith(seconds: number): Promise<void> {
  if (secondsLeft() < seconds) await sleep(secondsLeft() * 1000 + 200);
}

describe("exact rate limits with leased budgets (RATE_LIMIT_PER_MINUTE=40)", () => {
  it("accepts exactly 40 of 100 concurrent calls, with truthful RateLimit headers", async () => {
    const { read } = await workspace();
    await windowWith(15);
    const responses = await Promise.all(Array.from({ length: 100 }, () => call("GET", "/api/group_tags/", { token: read })));
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(accepted.length).toBe(LIMIT);
    expect(refused.every((r) => r.status === 429 && r.body.error.code === "rate_limited")).toBe(true);
    // Each accepted call saw one unit fewer left: 39, 38, … 0 — each exactly once.
    const remaining = accepted.map((r) => Number(r.headers.get("RateLimit-Remaining"))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const r of refused) {
      expect(r.headers.get("RateLimit-Remaining")).toBe("0");
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    }
  });

  it("accepts exactly 40 across several isolates calling in concurrent bursts across the window", async () => {
    const { read } = await workspace();
    const hash = await sha256(read);
    await windowWith(20);
    const isolates = [isolate(hash), isolate(hash), isolate(hash)];
    let accepted = 0;
    for (let round = 0; round < 10; round++) {
      const [local, ...others] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => call("GET", "/api/group_tags/", { token: read }))),
        ...isolates.map((i) => Promise.all(Array.from({ length: 10 }, () => i.admit()))),
      ]);
      await Promise.all(isolates.map((i) => i.settle()));
      const acceptedNow = local.filter((r) => r.status === 200).length + others.flat().filter((v) => v.outcome === "allowed").length;
      accepted += acceptedNow;
      expect(accepted).toBeLessThanOrEqual(LIMIT);
      if (acceptedNow === 0) break;
    }
    expect(accepted).toBe(LIMIT);
    // Nobody gets another unit in this window.
    for (const i of isolates) expect((await i.admit()).outcome).toBe("rate_limited");
    expect((await call("GET", "/api/group_tags/", { token: read })).status).toBe(429);
  });

  it("gives an idle isolate's unspent slice back when its lease expires, so the window still yields exactly 40", async () => {
    const { read } = await workspace();
    const hash = await sha256(read);
    await windowWith(LEASE_MS / 1000 + 12);
    const idle = isolate(hash);
    const busy = isolate(hash);
    expect((await idle.admit()).outcome).toBe("allowed"); // holds a slice and spends one unit of it

    let accepted = 1;
    for (let outcome = (await busy.admit()).outcome; outcome === "allowed"; outcome = (await busy.admit()).outcome) {
      accepted++;
      await busy.settle();
    }
    expect(accepted).toBeLessThan(LIMIT); // the idle isolate still holds unspent units

    await sleep(LEASE_MS + 200);
    // Its next call releases the unspent units of the expired lease; the guard re-grants them.
    for (let outcome = (await idle.admit()).outcome; outcome === "allowed"; outcome = (await idle.admit()).outcome) {
      accepted++;
      await idle.settle();
    }
    expect(accepted).toBe(LIMIT);
    expect((await busy.admit()).outcome).toBe("rate_limited");
  }, 30_000);

  it("ends every lease with its window: the next window starts with a new lease (taken in the background at the window's end) and the whole budget", async () => {
    const { read } = await workspace();
    const hash = await sha256(read);
    const other = isolate(hash);
    // Use the window up to its last seconds.
    if (secondsLeft() > 4) await sleep((secondsLeft() - 3) * 1000);
    const answer = await guards.get(guards.idFromName(hash)).lease(hash, { need: { api: 1 } });
    if (!answer.valid) throw new Error("invalid");
    expect(answer.ttlMs).toBeLessThanOrEqual(answer.windowEndsInMs);
    expect(answer.windowEndsInMs).toBeLessThanOrEqual(4_000);

    // Spends the rest of the window here (not waiting for its background work: that now
    // includes the unit of the next window it takes once the window ends).
    for (let i = 0; i < 200 && (await other.admit()).outcome === "allowed"; i++);
    expect((await other.admit()).outcome).toBe("rate_limited");
    const criticalBefore = other.counts.critical;

    await sleep(secondsLeft() * 1000 + 200);
    await other.settle(); // the next window's unit, taken in the background after the window's end
    const fresh = await other.admit();
    expect(fresh.outcome).toBe("allowed");
    expect(other.counts.critical).toBe(criticalBefore); // no guard call on the way into the new window
    if (fresh.outcome !== "allowed") throw new Error(fresh.outcome);
    // The old lease was not used past its window: a new one, with the whole budget.
    expect(fresh.rate.remaining).toBe(LIMIT - 1);
    expect(fresh.rate.reset).toBeGreaterThanOrEqual(57);
  }, 90_000);

  it("asks once more for the next window's unit when the guard still answered for the ending one, and gives up after that", async () => {
    // Two isolates whose clocks put the window's end early: by 200 ms (its ask, 50 ms after
    // its estimate, reaches the guard 150 ms before the end; the ask 250 ms later is in the
    // new window) and by 1 s (both asks come before the end: it gives up, and its first call
    // of the new window waits for the guard as it would without the unit taken ahead).
    const [first, second] = await Promise.all([workspace(), workspace()]);
    const retried = isolate(await sha256(first.read), 200);
    const gaveUp = isolate(await sha256(second.read), 1_000);
    // The window's last 3 seconds (the next window's, when this one has less left).
    if (secondsLeft() < 3) await sleep(secondsLeft() * 1000 + 200);
    await sleep((secondsLeft() - 3) * 1000);
    const ending = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
    for (const each of [retried, gaveUp]) expect((await each.admit()).outcome).toBe("allowed");
    await sleep(secondsLeft() * 1000 + 400); // past the window's end and both isolates' asks
    await Promise.all([retried.settle(), gaveUp.settle()]);

    // Asked in the ending window, asked again: the unit of the new window is held.
    expect(retried.nextWindowAsks).toEqual([ending, ending + WINDOW_MS]);
    const criticalBefore = retried.counts.critical;
    const fresh = await retried.admit();
    expect(fresh.outcome).toBe("allowed");
    expect(retried.counts.critical).toBe(criticalBefore); // spent in memory
    // Control: twice in the ending window, and no more asks; the first call of the new window goes to the guard.
    expect(gaveUp.nextWindowAsks).toEqual([ending, ending]);
    const gaveUpBefore = gaveUp.counts.critical;
    expect((await gaveUp.admit()).outcome).toBe("allowed");
    expect(gaveUp.counts.critical).toBe(gaveUpBefore + 1);
  }, 90_000);
});
