import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

/**
 * Declares, on a read operation's route, that its `*_not_found` answer read on a D1 replica
 * is served once more from the primary before it is answered (read-your-writes, docs/edge.md: a
 * customer created a moment ago elsewhere is never "not found"). serveRequest does the
 * replay; only routes carrying this middleware get it, so a reader sees at the declaration
 * which operations may cost a second attempt. `apiOperation`, `adminOperation` and
 * `publicOperation` add it for `notFound: "retry on primary"`; plain routes list it in
 * their `middleware`.
 */
export const retryNotFoundOnPrimary: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.var.request.retryNotFoundOnPrimary();
  await next();
};

/**
 * What a route declaration puts ahead of its middleware for `notFound: "retry on primary"`:
 * the declaration, or nothing. A request that reads the primary (`database: "primary"`) can
 * never see a replica's not-found, so declaring it there is refused when the route is
 * declared, not silently ignored.
 */
export function declaredRetry(options: {
  operationId: string;
  database: "primary" | "session";
  notFound?: "answer" | "retry on primary";
}): MiddlewareHandler<AppEnv>[] {
  if (options.notFound !== "retry on primary") return [];
  if (options.database !== "session") {
    throw new Error(
      `${options.operationId}: retryNotFoundOnPrimary is for operations that read on a replica (database: "session"); this one reads the primary.`,
    );
  }
  return [retryNotFoundOnPrimary];
}
