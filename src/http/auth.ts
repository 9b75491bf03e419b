import type { MiddlewareHandler } from "hono";
import { constantTimeEqual, sha256Hex } from "../lib/crypto";
import type { LimitBucket } from "./api-token-guard";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

const tokenHeader = /^Token\s+([\x21-\x7e]{1,512})$/;

/**
 * Authenticates `Service-Authorization: Token <key>`, checks the permission the operation
 * needs and counts the call against the token's rate limits — in that order, one Durable
 * Object call. Sets the `RateLimit-*` headers on every authenticated response.
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
    const guard = c.env.API_TOKEN_GUARD.get(c.env.API_TOKEN_GUARD.idFromName(tokenHash));
    const verdict = await guard.check(tokenHash, { needsWrite: options.write, buckets });
    if (verdict.outcome === "invalid_token") throw new ApiError("invalid_api_token", "The API token is unknown or revoked.");

    c.header("RateLimit-Limit", String(verdict.rate.limit));
    c.header("RateLimit-Remaining", String(verdict.rate.remaining));
    c.header("RateLimit-Reset", String(verdict.rate.reset));
    if (verdict.outcome === "read_only") {
      throw new ApiError("read_only_token", "This API token is read-only; the operation needs a write token.");
    }
    if (verdict.outcome === "rate_limited") {
      throw new ApiError("rate_limited", `Rate limit exceeded; retry in ${verdict.retryAfter} s.`, undefined, {
        "Retry-After": String(verdict.retryAfter),
      });
    }
    c.set("principal", verdict.principal);
    await next();
  };
}

/** `/admin/` calls: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export const adminAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  const match = /^Bearer\s+(\S+)$/.exec(c.req.header("Authorization")?.trim() ?? "");
  // Hashing both sides first makes the comparison independent of the token lengths.
  const valid =
    expected !== undefined && expected !== "" && match !== null && constantTimeEqual(await sha256Hex(match[1]), await sha256Hex(expected));
  if (!valid) throw new ApiError("invalid_admin_token", "Admin calls need 'Authorization: Bearer <ADMIN_TOKEN>'.");
  await next();
};
