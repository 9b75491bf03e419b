import { newerBookmark } from "../db/client";
import { log } from "../lib/log";
import { type CustomerHolder, LEASE_MS, limitBuckets, type LeaseAnswer, type LeaseRequest, type LimitBucket, type Units } from "./guard";
import type { Principal } from "./principal";

export interface RateState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets. */
  reset: number;
}

/** A lease is held for an API token's principal (with its permission) or a customer (none: it never writes). */
export interface Holder {
  permission?: "read" | "write";
}

export type Verdict<H extends object = Principal> =
  | { outcome: "invalid_token" }
  | { outcome: "read_only"; principal: H; rate: RateState }
  | { outcome: "rate_limited"; principal: H; rate: RateState; retryAfter: number }
  | { outcome: "allowed"; principal: H; rate: RateState };

export interface AdmitRequest {
  needsWrite: boolean;
  /** The first one is the limit the verdict's rate reports. */
  buckets: LimitBucket[];
}

/** How the lease cache reaches the guard (of a token or a customer); one object per request. */
export interface GuardLink<H extends object = Principal> {
  lease(request: LeaseRequest): Promise<LeaseAnswer<H>>;
  /** Keeps a background renewal alive after the response (ctx.waitUntil). */
  background(work: Promise<unknown>): void;
  /** Counts a guard call on the request's critical path. */
  onCriticalCall(): void;
}

interface Slice {
  limit: number;
  /** Units granted to this isolate in the lease's window, and how many it spent. */
  allowance: number;
  spent: number;
  /** Units nobody held at the guard's latest answer. */
  available: number;
  lastGrant: number;
}

interface Lease<H> {
  principal: H;
  windowStart: number;
  /** Local clock; measured from when the request left, so never later than the guard's. */
  windowEndsAt: number;
  expiresAt: number;
  version: number;
  buckets: Record<LimitBucket, Slice>;
  renewing: boolean;
  /** A unit of the next window is being taken for this isolate (takeNextWindow). */
  nextWindowTaken: boolean;
  bookmark: string | null;
}

/**
 * How long after this isolate's estimate of the window's end it asks for the next window: the
 * estimate is early by the guard's one-way delay, so the request reaches the guard in the new
 * window unless the delays differ by more than this.
 */
const NEXT_WINDOW_MARGIN_MS = 50;
/** If the guard still answered for the ending window, it is asked once more this much later. */
const NEXT_WINDOW_RETRY_MS = 250;

/**
 * The isolate's side of the leases, keyed by guard name: API tokens' (tokenLeases) and
 * customers' report-builder budgets (customerLeases). A call spends a unit of the lease in memory
 * (no await between the check and the spend, so concurrent calls never overspend); the
 * guard is called on the critical path only without a usable lease or when the slice is
 * empty, and in the background when it runs low or is about to expire.
 */
export class TokenLeases<H extends object = Principal> {
  private readonly leases = new Map<string, Lease<H>>();
  private readonly revoked = new Set<string>();
  private readonly written = new Map<string, string>();
  /** Calls waiting for the guard, per token: only the first takes a slice, the others exactly their unit. */
  private readonly waiting = new Map<string, number>();

  async admit(tokenHash: string, request: AdmitRequest, guard: GuardLink<H>): Promise<Verdict<H>> {
    const now = Date.now();
    const lease = this.leases.get(tokenHash);
    if (lease && now < lease.expiresAt) {
      const verdict = this.spend(lease, request, now, false);
      if (verdict) {
        this.topUp(tokenHash, lease, request, now, guard);
        return verdict;
      }
    }
    guard.onCriticalCall();
    const need: Units = {};
    for (const bucket of request.buckets) {
      const slice = lease && now < lease.expiresAt ? lease.buckets[bucket] : undefined;
      need[bucket] = slice && slice.allowance - slice.spent >= 1 ? 0 : 1;
    }
    const waiting = this.waiting.get(tokenHash) ?? 0;
    this.waiting.set(tokenHash, waiting + 1);
    try {
      // The units asked for are taken inside renew(), before any other call can spend them.
      return await this.renew(tokenHash, need, waiting === 0, guard, (fresh) => {
        if (!fresh) return { outcome: "invalid_token" };
        this.nextWindowSoon(tokenHash, fresh, request, Date.now(), guard);
        return this.spend(fresh, request, Date.now(), true);
      });
    } finally {
      const left = (this.waiting.get(tokenHash) ?? 1) - 1;
      if (left > 0) this.waiting.set(tokenHash, left);
      else this.waiting.delete(tokenHash);
    }
  }

  /** The token was revoked through this isolate: refuse it here at once. */
  forget(tokenHash: string): void {
    this.revoked.add(tokenHash);
    this.leases.delete(tokenHash);
  }

  /**
   * A unit of `bucket` spent by a call admitted at `admittedAt` that was refused before it did
   * anything (a delivery call refused by validation: no job exists) goes back to this isolate's
   * slice, so it does not count against the limit. Only within the lease's window it was spent in.
   */
  giveBack(tokenHash: string, bucket: LimitBucket, admittedAt: number): void {
    const lease = this.leases.get(tokenHash);
    if (!lease || admittedAt < lease.windowStart || admittedAt >= lease.windowEndsAt) return;
    const slice = lease.buckets[bucket];
    if (slice.spent > 0) slice.spent--;
  }

  /** The newest bookmark known for the token's writes: this isolate's, or another's via the guard. */
  bookmarkFor(tokenHash: string): string | null {
    return newerBookmark(this.written.get(tokenHash), this.leases.get(tokenHash)?.bookmark);
  }

  noteWrite(tokenHash: string, bookmark: string): void {
    this.written.set(tokenHash, newerBookmark(this.written.get(tokenHash), bookmark) ?? bookmark);
  }

  /** Spends one unit of every bucket, or says why not; null when only a renewal can tell. */
  /** A final spend always decides; an early one answers null when the lease must be renewed first. */
  private spend(lease: Lease<H>, request: AdmitRequest, now: number, final: true): Verdict<H>;
  private spend(lease: Lease<H>, request: AdmitRequest, now: number, final: boolean): Verdict<H> | null;
  private spend(lease: Lease<H>, request: AdmitRequest, now: number, final: boolean): Verdict<H> | null {
    const { principal } = lease;
    const rated = request.buckets[0];
    if (request.needsWrite && (principal as Holder).permission !== "write")
      return { outcome: "read_only", principal, rate: rateOf(lease, rated, now) };
    const lacking = request.buckets.filter((bucket) => lease.buckets[bucket].allowance - lease.buckets[bucket].spent < 1);
    if (lacking.length === 0) {
      for (const bucket of request.buckets) lease.buckets[bucket].spent++;
      return { outcome: "allowed", principal, rate: rateOf(lease, rated, now) };
    }
    if (final || lacking.some((bucket) => lease.buckets[bucket].available === 0)) {
      // The headers of a 429 describe the limit that was hit (a delivery call's, not the general one).
      const hit = lacking.find((bucket) => lease.buckets[bucket].available === 0) ?? lacking[0];
      const rate = rateOf(lease, hit, now);
      return { outcome: "rate_limited", principal, rate, retryAfter: rate.reset };
    }
    return null;
  }

  private topUp(tokenHash: string, lease: Lease<H>, request: AdmitRequest, now: number, guard: GuardLink<H>): void {
    this.nextWindowSoon(tokenHash, lease, request, now, guard);
    if (lease.renewing) return;
    const need: Units = {};
    for (const bucket of request.buckets) {
      const slice = lease.buckets[bucket];
      if (slice.available > 0 && slice.allowance - slice.spent <= Math.ceil(slice.lastGrant / 2)) need[bucket] = 0;
    }
    const expiring = lease.expiresAt - now < LEASE_MS / 2;
    if (Object.keys(need).length === 0 && !expiring) return;
    lease.renewing = true;
    guard.background(
      this.renew(tokenHash, need, true, guard, () => null)
        .catch((error) => log("warn", "lease renewal failed", { error: String(error) }))
        .finally(() => {
          lease.renewing = false;
        }),
    );
  }

  /** In the window's last seconds, takes a unit of the next window once (takeNextWindow). */
  private nextWindowSoon(tokenHash: string, lease: Lease<H>, request: AdmitRequest, now: number, guard: GuardLink<H>): void {
    if (lease.nextWindowTaken || lease.windowEndsAt - now > LEASE_MS) return;
    lease.nextWindowTaken = true;
    guard.background(
      this.takeNextWindow(tokenHash, lease, request.buckets[0], guard).catch((error) =>
        log("warn", "next window's lease not taken", { error: String(error) }),
      ),
    );
  }

  /**
   * A lease ends with its window (every minute), and the first call after it would wait for
   * the guard. An isolate called in the window's last seconds therefore takes, in the
   * background, one unit of the next window as soon as that window begins, in the bucket its
   * calls are rated by (`api` for an API token, `builder` for a customer): its first such call
   * of the next minute spends it in memory and tops the lease up in the background as usual.
   * (Not `delivery`: twenty a minute are too few to have idle isolates hold them.) Exactness
   * is unchanged — the unit is granted by the guard like any other; an isolate that gets no
   * call in the new window holds one unit it does not use, as an idle isolate holds the rest of
   * its slice. Gives up if a call of the new window took a lease first.
   */
  private async takeNextWindow(tokenHash: string, ending: Lease<H>, bucket: LimitBucket, guard: GuardLink<H>): Promise<void> {
    await scheduler.wait(Math.max(0, ending.windowEndsAt - Date.now()) + NEXT_WINDOW_MARGIN_MS);
    const need: Units = { [bucket]: 1 };
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (this.leases.get(tokenHash) !== ending || this.revoked.has(tokenHash)) return; // replaced, revoked or dropped
      const next = await this.renew(tokenHash, need, false, guard, (lease) => lease);
      if (!next || next.windowStart > ending.windowStart) return;
      await scheduler.wait(NEXT_WINDOW_RETRY_MS); // the guard was still in the ending window
    }
  }

  private async renew<T>(
    tokenHash: string,
    need: Units,
    prefetch: boolean,
    guard: GuardLink<H>,
    then: (lease: Lease<H> | null) => T,
  ): Promise<T> {
    const sentAt = Date.now();
    const old = this.leases.get(tokenHash);
    let release: LeaseRequest["release"];
    if (old && sentAt >= old.expiresAt) {
      // An expired lease is never spent again: give its unspent units back to the window.
      const units: Units = {};
      for (const bucket of limitBuckets) {
        const slice = old.buckets[bucket];
        units[bucket] = Math.max(0, slice.allowance - slice.spent);
        slice.allowance = slice.spent;
      }
      release = { windowStart: old.windowStart, units };
    }
    const answer = await guard.lease({ need, prefetch, release, bookmark: this.written.get(tokenHash) ?? null });
    if (!answer.valid || this.revoked.has(tokenHash)) {
      this.leases.delete(tokenHash);
      return then(null);
    }
    let lease = this.leases.get(tokenHash);
    if (!lease || lease.windowStart < answer.windowStart) {
      lease = {
        principal: answer.principal,
        windowStart: answer.windowStart,
        windowEndsAt: sentAt + answer.windowEndsInMs,
        expiresAt: sentAt + answer.ttlMs,
        version: answer.version,
        buckets: {} as Record<LimitBucket, Slice>,
        renewing: false,
        nextWindowTaken: false,
        bookmark: answer.bookmark,
      };
      for (const bucket of limitBuckets) {
        const grant = answer.buckets[bucket];
        lease.buckets[bucket] = {
          limit: grant.limit,
          allowance: grant.granted,
          spent: 0,
          available: grant.available,
          lastGrant: grant.granted,
        };
      }
      this.leases.set(tokenHash, lease);
    } else if (lease.windowStart === answer.windowStart) {
      const newer = answer.version > lease.version;
      for (const bucket of limitBuckets) {
        const slice = lease.buckets[bucket];
        const grant = answer.buckets[bucket];
        slice.allowance += grant.granted;
        if (grant.granted > 0) slice.lastGrant = grant.granted;
        if (newer) slice.available = grant.available;
      }
      if (newer) {
        lease.version = answer.version;
        lease.principal = answer.principal;
        lease.expiresAt = Math.max(lease.expiresAt, sentAt + answer.ttlMs);
        lease.bookmark = newerBookmark(lease.bookmark, answer.bookmark);
      }
    }
    // An answer for a window that already ended grants nothing usable; the current lease stands.
    return then(lease);
  }
}

function rateOf<H>(lease: Lease<H>, bucket: LimitBucket, now: number): RateState {
  const slice = lease.buckets[bucket];
  return {
    limit: slice.limit,
    remaining: Math.max(0, slice.available + slice.allowance - slice.spent),
    reset: Math.max(1, Math.ceil((lease.windowEndsAt - now) / 1000)),
  };
}

/** The leases of this isolate (module scope lives as long as the isolate): API tokens'… */
export const tokenLeases = new TokenLeases<Principal>();
/** …and customers' report-builder budgets (guards named by customerGuardName). */
export const customerLeases = new TokenLeases<CustomerHolder>();
