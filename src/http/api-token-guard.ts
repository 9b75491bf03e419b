import { DurableObject } from "cloudflare:workers";
import { numberVar, type Env } from "../env";
import type { Principal } from "./context";

/** Which per-minute limits a call counts against (DESIGN.md section 7). */
export type LimitBucket = "api" | "delivery";

export interface GuardRequest {
  needsWrite: boolean;
  buckets: LimitBucket[];
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets. */
  reset: number;
}

export type GuardVerdict =
  | { outcome: "invalid_token" }
  | { outcome: "read_only"; principal: Principal; rate: RateState }
  | { outcome: "rate_limited"; principal: Principal; rate: RateState; retryAfter: number }
  | { outcome: "allowed"; principal: Principal; rate: RateState };

const WINDOW_MS = 60_000;
const PRINCIPAL_TTL_MS = 5 * 60_000;

/**
 * One instance per API token (named by the token's SHA-256). It answers, in one call,
 * whether the token is valid, may do what is asked, and is within its rate limits, so a
 * request costs one Durable Object call and no D1 round trip for authentication once the
 * instance is warm. Revocation tells the instance to forget the token at once.
 */
export class ApiTokenGuard extends DurableObject<Env> {
  private principal: { value: Principal | null; expiresAt: number } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS windows (bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)",
    );
  }

  async check(tokenHash: string, request: GuardRequest): Promise<GuardVerdict> {
    const principal = await this.resolve(tokenHash);
    if (!principal) return { outcome: "invalid_token" };

    const now = Date.now();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const reset = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    const limits = request.buckets.map((bucket) => ({ bucket, limit: this.limitOf(bucket), used: this.used(bucket, windowStart) }));
    const general = limits.find((l) => l.bucket === "api") ?? { limit: this.limitOf("api"), used: this.used("api", windowStart) };
    const rate = (used: number): RateState => ({ limit: general.limit, remaining: Math.max(0, general.limit - used), reset });

    if (request.needsWrite && principal.permission !== "write") {
      return { outcome: "read_only", principal, rate: rate(general.used) };
    }
    // A refused call does not count.
    if (limits.some((l) => l.used >= l.limit)) {
      return { outcome: "rate_limited", principal, rate: rate(general.used), retryAfter: reset };
    }
    for (const l of limits) {
      this.ctx.storage.sql.exec(
        `INSERT INTO windows (bucket, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (bucket) DO UPDATE SET count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,
                                            window_start = excluded.window_start`,
        l.bucket,
        windowStart,
      );
    }
    return { outcome: "allowed", principal, rate: rate(general.used + (request.buckets.includes("api") ? 1 : 0)) };
  }

  /** Called when the token is revoked: the next call re-reads D1 and finds it revoked. */
  async forget(): Promise<void> {
    this.principal = undefined;
  }

  private limitOf(bucket: LimitBucket): number {
    return bucket === "api"
      ? numberVar(this.env.RATE_LIMIT_PER_MINUTE, 600)
      : numberVar(this.env.DELIVERY_LIMIT_PER_MINUTE, 20);
  }

  private used(bucket: LimitBucket, windowStart: number): number {
    const row = this.ctx.storage.sql
      .exec<{ window_start: number; count: number }>("SELECT window_start, count FROM windows WHERE bucket = ?", bucket)
      .toArray()[0];
    return row && row.window_start === windowStart ? row.count : 0;
  }

  private async resolve(tokenHash: string): Promise<Principal | null> {
    if (this.principal && this.principal.expiresAt > Date.now()) return this.principal.value;
    const row = await this.env.DB.prepare(
      `SELECT t.id AS token_id, t.permission, g.id AS access_group_id, g.name AS access_group_name
         FROM api_tokens t JOIN access_groups g ON g.id = t.access_group_id
        WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
    )
      .bind(tokenHash)
      .first<{ token_id: string; permission: "read" | "write"; access_group_id: number; access_group_name: string }>();
    const value: Principal | null = row
      ? { tokenId: row.token_id, permission: row.permission, accessGroupId: row.access_group_id, accessGroupName: row.access_group_name }
      : null;
    this.principal = { value, expiresAt: Date.now() + PRINCIPAL_TTL_MS };
    return value;
  }
}
