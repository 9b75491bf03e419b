import { config } from "../config";
import type { Env } from "../env";
import { log } from "../lib/log";
import { type CustomerHolder, customerGuardName } from "./guard";
import { customerLeases, type GuardLink, type Verdict } from "./leases";

/**
 * Counts one report-builder request against its customer's BUILDER_REQUESTS_PER_MINUTE, with
 * the leases API tokens use (leases.ts): the customer's guard (guard.ts, bucket `builder`)
 * hands this isolate slices of the window, which it spends in memory — no D1 write and, while
 * the lease lasts, no Durable Object call. Answers the leases' verdict (`rate_limited` with its
 * `retryAfter` over the limit); the caller, which calls it only once the request's token passed
 * its checks (so a refused call costs the customer nothing), answers 429. `onCriticalCall`
 * counts a guard call on the request's critical path.
 */
export function countCustomerRequest(
  env: Env,
  customerId: number,
  background: ((work: Promise<unknown>) => void) | undefined,
  onCriticalCall: () => void,
): Promise<Verdict<CustomerHolder>> {
  const name = customerGuardName(customerId);
  return customerLeases.admit(
    name,
    { needsWrite: false, buckets: ["builder"] },
    customerGuard(env, customerId, background, onCriticalCall),
  );
}

function customerGuard(
  env: Env,
  customerId: number,
  background: ((work: Promise<unknown>) => void) | undefined,
  onCriticalCall: () => void,
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
    onCriticalCall,
  };
}
