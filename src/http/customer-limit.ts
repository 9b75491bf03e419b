import { config } from "../config";
import type { Env } from "../env";
import { log } from "../lib/log";
import { customerGuardName } from "./api-token-guard";
import { ApiError } from "./errors";
import { currentRequest } from "./request-state";
import { customerLeases, type GuardLink } from "./token-lease";
import type { CustomerHolder } from "./api-token-guard";

/**
 * Counts one report-builder request against its customer's BUILDER_REQUESTS_PER_MINUTE, with
 * the leases API tokens use (token-lease.ts): the customer's guard (api-token-guard.ts, bucket
 * `builder`) hands this isolate slices of the window, which it spends in memory — no D1 write
 * and, while the lease lasts, no Durable Object call. Called only once the request's token
 * passed its checks, so a refused call costs the customer nothing; over the limit it throws
 * 429 `rate_limited` with `Retry-After`.
 */
export async function countCustomerRequest(
  env: Env,
  customerId: number,
  background: ((work: Promise<unknown>) => void) | undefined,
  message: (retryAfter: number) => string,
): Promise<void> {
  const name = customerGuardName(customerId);
  const state = currentRequest();
  // The retry on the primary of a replica's not-found was counted by its first attempt (if that got this far).
  if (state && !state.countOnce(name)) return;
  const verdict = await customerLeases.admit(name, { needsWrite: false, buckets: ["builder"] }, customerGuard(env, customerId, background));
  if (verdict.outcome === "rate_limited") {
    throw new ApiError("rate_limited", message(verdict.retryAfter), undefined, { "Retry-After": String(verdict.retryAfter) });
  }
}

function customerGuard(
  env: Env,
  customerId: number,
  background: ((work: Promise<unknown>) => void) | undefined,
): GuardLink<CustomerHolder> {
  const namespace = env.API_TOKEN_GUARD;
  return {
    lease: (request) =>
      namespace
        .get(namespace.idFromName(customerGuardName(customerId)))
        .leaseForCustomer(customerId, config(env).BUILDER_REQUESTS_PER_MINUTE, request),
    background: (work) => {
      // Without an execution context (a direct app.fetch in a script) the renewal still runs.
      if (background) background(work);
      else work.catch((error) => log("warn", "lease renewal failed", { error: String(error) }));
    },
    onCriticalCall: () => currentRequest()?.countDurableObjectCall(),
  };
}
