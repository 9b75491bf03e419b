import type { MiddlewareHandler } from "hono";
import { newerBookmark } from "../db/client";
import type { Env } from "../env";
import { constantTimeEqual, sha256Hex } from "../lib/crypto";
import type { LimitBucket } from "../rate-limits/guard";
import { tokenLeases, type GuardLink } from "../rate-limits/leases";
import type { AppContext, AppEnv } from "./context";
import { fromOwnOrigin, hasConsoleCookie, liveConsoleSession } from "./console-session";
import { ApiError } from "./errors";
import { currentRequest } from "./request-state";

const tokenHeader = /^Token\s+([\x21-\x7e]{1,512})$/;

/** A delivery call answered with one of these was refused before any job existed. */
const REFUSED_BEFORE_A_JOB = new Set([400, 404, 422]);

/**
 * Authenticates `Service-Authorization: Token <key>`, checks the permission the operation
 * needs and counts the call against the token's rate limits — in that order, from the
 * isolate's lease of the token (no Durable Object call while the lease lasts). Sets the
 * `RateLimit-*` headers on every authenticated response. A read operation then reads D1
 * through a session anywhere at least as fresh as the token's latest write; a write
 * operation reads the primary.
 */
export function apiAccess(options: { write: boolean; delivery?: boolean }): MiddlewareHandler<AppEnv> {
  const buckets: LimitBucket[] = options.delivery ? ["api", "delivery"] : ["api"];
  return async (c, next) => {
    const header = c.req.header("Service-Authorization");
    if (header === undefined || header.trim() === "") {
      throw new ApiError("missing_api_token", "Send your API token as 'Service-Authorization: Token <API_KEY>'.", undefined, {
        "WWW-Authenticate": "Token",
      });
    }
    const match = tokenHeader.exec(header.trim());
    if (!match) throw new ApiError("invalid_api_token", "The Service-Authorization header must be 'Token <API_KEY>'.");

    const tokenHash = await sha256Hex(match[1]);
    const state = c.var.request;
    // The retry of a replica's not-found on the primary was already admitted and counted.
    const admitted = state.admittedBefore(tokenHash);
    if (admitted) {
      for (const [name, value] of Object.entries(admitted.headers)) c.header(name, value);
      c.set("principal", admitted.principal);
      await next();
      return;
    }
    const admittedAt = Date.now();
    const verdict = await tokenLeases.admit(tokenHash, { needsWrite: options.write, buckets }, guardLink(c, tokenHash));
    if (verdict.outcome === "invalid_token") throw new ApiError("invalid_api_token", "The API token is unknown or revoked.");

    const headers = {
      "RateLimit-Limit": String(verdict.rate.limit),
      "RateLimit-Remaining": String(verdict.rate.remaining),
      "RateLimit-Reset": String(verdict.rate.reset),
    };
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (verdict.outcome === "read_only") {
      throw new ApiError("read_only_token", "This API token is read-only; the operation needs a write token.");
    }
    if (verdict.outcome === "rate_limited") {
      throw new ApiError("rate_limited", `Rate limit exceeded; retry in ${verdict.retryAfter} s.`, undefined, {
        "Retry-After": String(verdict.retryAfter),
      });
    }
    c.set("principal", verdict.principal);
    state.authenticated(tokenHash, verdict.principal, headers);
    // A write reads the primary; a read, a session at least as fresh as the token's latest write.
    if (options.write) state.readFrom("primary");
    else state.readFrom("session", newerBookmark(state.session.bookmark, tokenLeases.bookmarkFor(tokenHash)));
    await next();
    // A delivery call refused before any job exists (its body, an unknown dashboard or
    // customer, a theme it names) does not use up the delivery budget.
    if (options.delivery && REFUSED_BEFORE_A_JOB.has(c.res.status)) tokenLeases.giveBack(tokenHash, "delivery", admittedAt);
    if (options.write) {
      const bookmark = state.session.latestBookmark();
      if (bookmark) tokenLeases.noteWrite(tokenHash, bookmark);
    }
  };
}

/** The token's guard (the generated Env types the namespace with its class). */
function guardOf(env: Env, tokenHash: string) {
  const namespace = env.API_TOKEN_GUARD;
  return namespace.get(namespace.idFromName(tokenHash));
}

function guardLink(c: AppContext, tokenHash: string): GuardLink {
  const stub = () => guardOf(c.env, tokenHash);
  return {
    lease: (request) => stub().lease(tokenHash, request),
    background: (work) => {
      try {
        c.executionCtx.waitUntil(work);
      } catch {
        // No execution context (a direct app.fetch in a script): the work still runs.
      }
    },
    onCriticalCall: () => c.var.request.countDurableObjectCall(),
  };
}

/** Revokes the token's leases: the guard refuses renewals at once, this isolate at once, others within a lease. */
export async function revokeTokenLeases(env: Env, tokenHash: string): Promise<void> {
  tokenLeases.forget(tokenHash);
  currentRequest()?.countDurableObjectCall();
  await guardOf(env, tokenHash).forget();
}

/**
 * `/admin/` calls: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time, or —
 * without that header — the console's session cookie (console-session.ts), accepted only
 * from a page of this service's own origin (else 403 `cross_site_request`, whatever the
 * cookie), and only while its session lives.
 */
export const adminAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  const authorization = c.req.header("Authorization");
  if (authorization === undefined && hasConsoleCookie(c)) {
    if (!fromOwnOrigin(c)) {
      throw new ApiError("cross_site_request", "The console's session is accepted only from the service's own pages.");
    }
    if (!(await liveConsoleSession(c))) throw new ApiError("invalid_admin_token", "The console session has ended; sign in again.");
    await next();
    return;
  }
  const expected = c.env.ADMIN_TOKEN;
  const match = /^Bearer\s+(\S+)$/.exec(authorization?.trim() ?? "");
  // Hashing both sides first makes the comparison independent of the token lengths.
  const valid = expected !== undefined && expected !== "" && match !== null && (await isAdminToken(expected, match[1]));
  if (!valid) throw new ApiError("invalid_admin_token", "Admin calls need 'Authorization: Bearer <ADMIN_TOKEN>'.");
  await next();
};

/** Whether `given` is the admin token `expected`: both hashed first, so the comparison's time tells nothing of either length. */
export async function isAdminToken(expected: string, given: string): Promise<boolean> {
  return constantTimeEqual(await sha256Hex(given), await sha256Hex(expected));
}
