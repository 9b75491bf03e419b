import { ApiError } from "../http/errors";
import type { Principal } from "../rate-limits/principal";

/**
 * The one rule of what a minted token may do: never more than the API token that minted it.
 * A token that could write (save reports, create subscriptions) needs a write token to mint;
 * a read token mints view-only tokens. Each kind of token says what it could write (`writes`),
 * so the rule holds for a kind added later too.
 */
export function requireMintingPermission(permission: Principal["permission"], writes: string | undefined): void {
  if (permission === "write" || writes === undefined) return;
  throw new ApiError("read_only_token", `This API token is read-only; a token that ${writes} needs a write token to mint.`);
}
