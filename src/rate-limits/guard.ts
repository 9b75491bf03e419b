import { DurableObject } from "cloudflare:workers";
import { config } from "../config";
import type { Env } from "../env";
import type { Principal } from "./principal";

/** Which per-minute limits a call counts against: an API token's calls and deliveries, a customer's report-builder requests. */
export type LimitBucket = "api" | "delivery" | "builder";
export const limitBuckets: readonly LimitBucket[] = ["api", "delivery", "builder"];

export type Units = Partial<Record<LimitBucket, number>>;

export interface LeaseRequest {
  /** Units the caller needs right now, per bucket (0 for a background top-up). */
  need: Units;
  /** Also take a slice of what is left (else exactly `need`): false while another call of the isolate already asks. */
  prefetch?: boolean;
  /** Units of this window the caller was granted earlier and will never spend (its lease ran out). */
  release?: { windowStart: number; units: Units };
  /** The newest D1 bookmark the caller's isolate saw this token write. */
  bookmark?: string | null;
}

export interface BucketGrant {
  limit: number;
  /** Units handed to the caller by this answer. */
  granted: number;
  /** Units nobody holds yet in this window (limit − all grants). */
  available: number;
}

/** Who a guard answers for: an API token's principal, or a customer (whose builder token the request itself checked). */
export interface CustomerHolder {
  customerId: number;
}

export type LeaseAnswer<H = Principal> =
  | { valid: false }
  | {
      valid: true;
      principal: H;
      windowStart: number;
      /** Milliseconds until the window ends, from the guard's clock. */
      windowEndsInMs: number;
      /** Milliseconds the principal and the units may be used for (never past the window's end). */
      ttlMs: number;
      buckets: Record<LimitBucket, BucketGrant>;
      /** Orders answers of one window: a higher version saw every grant a lower one saw. */
      version: number;
      /** The newest bookmark any isolate reported for this token. */
      bookmark: string | null;
    };

export const WINDOW_MS = 60_000;
/** How long an isolate may use a lease; revocation takes effect within this (and at most 10 s). */
export const LEASE_MS = 5_000;
/** A grant is a quarter of what is left, so several isolates can hold slices at once. */
const SLICE_DIVISOR = 4;
const PRINCIPAL_TTL_MS = 5 * 60_000;

/** The guard of a customer's report-builder requests (API tokens' guards are named by the token's SHA-256, hex). */
export function customerGuardName(customerId: number): string {
  return `customer:${customerId}`;
}

/**
 * The source of truth for one API token (named by the token's SHA-256): is it valid, with
 * which permission, and how many calls of this minute are still free. Isolates do not ask
 * it per call; they lease a slice of the remaining budget with the principal for a few
 * seconds, spend it in memory and renew before it runs out (see leases.ts).
 *
 * The same guard, named by customerGuardName, keeps a customer's report-builder budget
 * (BUILDER_REQUESTS_PER_MINUTE, bucket `builder`): there is no token to resolve — the builder
 * request checked its signed token against the customer before asking — so only the
 * counting is shared.
 *
 * Exactness: the guard never grants more than `limit` units per window in total. Only
 * grants and releases write storage (the `windows` row holds the units handed out), so
 * an evicted guard never hands out a unit twice — and no request writes storage.
 */
export class ApiTokenGuard extends DurableObject<Env> {
  private principal: { value: Principal | null; expiresAt: number } | undefined;
  /** Set by revocation: stays refused even if a D1 read started before it answers "valid". */
  private revoked = false;
  private window: { start: number; committed: Record<LimitBucket, number> } | undefined;
  private version = Date.now() * 1000;
  private bookmark: string | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS windows (bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)",
    );
  }

  async lease(tokenHash: string, request: LeaseRequest): Promise<LeaseAnswer> {
    const principal = await this.resolve(tokenHash);
    if (!principal) return { valid: false };
    return this.grant(principal, request);
  }

  /**
   * A customer's report-builder budget: a slice of the `builder` bucket, whose limit is the
   * caller's BUILDER_REQUESTS_PER_MINUTE (every isolate of a deployment reads the same).
   */
  async leaseForCustomer(customerId: number, limit: number, request: LeaseRequest): Promise<LeaseAnswer<CustomerHolder>> {
    return this.grant({ customerId }, request, { builder: limit });
  }

  private grant<H>(principal: H, request: LeaseRequest, limits: Units = {}): LeaseAnswer<H> {
    const now = Date.now();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const window = this.currentWindow(windowStart);
    const changed = new Set<LimitBucket>();

    if (request.release && request.release.windowStart === windowStart) {
      for (const bucket of limitBuckets) {
        const units = Math.min(Math.max(0, Math.floor(request.release.units[bucket] ?? 0)), window.committed[bucket]);
        if (units > 0) {
          window.committed[bucket] -= units;
          changed.add(bucket);
        }
      }
    }

    const buckets = {} as Record<LimitBucket, BucketGrant>;
    for (const bucket of limitBuckets) {
      const limit = limits[bucket] ?? this.limitOf(bucket);
      const free = Math.max(0, limit - window.committed[bucket]);
      const need = Math.max(0, Math.floor(request.need[bucket] ?? 0));
      const slice = request.prefetch === false ? need : Math.max(need, Math.ceil(free / SLICE_DIVISOR));
      const granted = bucket in request.need ? Math.min(free, slice) : 0;
      if (granted > 0) {
        window.committed[bucket] += granted;
        changed.add(bucket);
      }
      buckets[bucket] = { limit, granted, available: free - granted };
    }
    for (const bucket of changed) {
      this.ctx.storage.sql.exec(
        `INSERT INTO windows (bucket, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (bucket) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`,
        bucket,
        windowStart,
        window.committed[bucket],
      );
    }
    if (request.bookmark && (this.bookmark === null || request.bookmark > this.bookmark)) this.bookmark = request.bookmark;

    const windowEndsInMs = windowStart + WINDOW_MS - now;
    return {
      valid: true,
      principal,
      windowStart,
      windowEndsInMs,
      ttlMs: Math.min(LEASE_MS, windowEndsInMs),
      buckets,
      version: ++this.version,
      bookmark: this.bookmark,
    };
  }

  /** Called when the token is revoked: every later lease is refused. */
  async forget(): Promise<void> {
    this.revoked = true;
    this.principal = { value: null, expiresAt: Number.POSITIVE_INFINITY };
  }

  private currentWindow(windowStart: number) {
    if (this.window?.start === windowStart) return this.window;
    const committed: Record<LimitBucket, number> = { api: 0, delivery: 0, builder: 0 };
    const rows = this.ctx.storage.sql
      .exec<{ bucket: LimitBucket; window_start: number; count: number }>("SELECT bucket, window_start, count FROM windows")
      .toArray();
    for (const row of rows) if (row.window_start === windowStart && row.bucket in committed) committed[row.bucket] = row.count;
    this.window = { start: windowStart, committed };
    return this.window;
  }

  private limitOf(bucket: LimitBucket): number {
    const settings = config(this.env);
    if (bucket === "builder") return settings.BUILDER_REQUESTS_PER_MINUTE;
    return bucket === "api" ? settings.RATE_LIMIT_PER_MINUTE : settings.DELIVERY_LIMIT_PER_MINUTE;
  }

  private async resolve(tokenHash: string): Promise<Principal | null> {
    if (this.revoked) return null;
    if (this.principal && this.principal.expiresAt > Date.now()) return this.principal.value;
    const row = await this.env.DB.prepare(
      `SELECT t.id AS token_id, t.permission, g.id AS access_group_id, g.name AS access_group_name
         FROM api_tokens t JOIN access_groups g ON g.id = t.access_group_id
        WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
    )
      .bind(tokenHash)
      .first<{ token_id: string; permission: "read" | "write"; access_group_id: number; access_group_name: string }>();
    if (this.revoked) return null;
    const value: Principal | null = row
      ? { tokenId: row.token_id, permission: row.permission, accessGroupId: row.access_group_id, accessGroupName: row.access_group_name }
      : null;
    this.principal = { value, expiresAt: Date.now() + PRINCIPAL_TTL_MS };
    return value;
  }
}
