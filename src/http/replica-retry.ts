import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { currentRequest } from "./request-state";

/**
 * Declares, on a read operation's route, that its `*_not_found` answer read on a D1 replica
 * is served once more from the primary before it is answered (DESIGN "read-your-writes": a
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
