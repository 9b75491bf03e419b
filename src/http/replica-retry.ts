import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { currentRequest } from "./request-state";

/**
 * Declares, on a read operation's route, that its `*_not_found` answer read on a D1 replica
 * is served once more from the primary before it is answered (read-your-writes, docs/edge.md: a
 * customer created a moment ago elsewhere is never "not found"). serveRequest does the
 * replay; only routes carrying this middleware get it, so a reader sees at the declaration
 * which operations may cost a second attempt. `apiOperation`, `adminOperation` and
 * `publicOperation` add it for `retryNotFoundOnPrimary: true`; plain routes list it in
 * their `middleware`.
 */
export const retryNotFoundOnPrimary: MiddlewareHandler<AppEnv> = async (_c, next) => {
  const state = currentRequest();
  if (state) state.retryNotFoundOnPrimary = true;
  await next();
};

/**
 * What a route declaration puts ahead of its middleware for `retryNotFoundOnPrimary`: the
 * declaration, or nothing. A request that reads the primary anyway (an admin, public or
 * builder POST) can never see a replica's not-found, so declaring it there is refused when
 * the route is declared, not silently ignored.
 */
export function declaredRetry(
  options: { method: string; operationId: string; retryNotFoundOnPrimary?: boolean },
  readsReplica = options.method === "get",
): MiddlewareHandler<AppEnv>[] {
  if (!options.retryNotFoundOnPrimary) return [];
  if (!readsReplica) {
    throw new Error(
      `${options.operationId}: retryNotFoundOnPrimary is for operations that read on a replica (GET); a ${options.method.toUpperCase()} reads the primary.`,
    );
  }
  return [retryNotFoundOnPrimary];
}
