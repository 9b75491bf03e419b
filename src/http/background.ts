import type { Context } from "hono";

/**
 * The request's `waitUntil` (work allowed to outlive the response, e.g. storing a query
 * result), or undefined where the app runs without an execution context (`app.fetch` with
 * no third argument): then such work is awaited instead.
 */
export function backgroundOf(c: Context): ((promise: Promise<unknown>) => void) | undefined {
  try {
    const context = c.executionCtx;
    return (promise) => context.waitUntil(promise);
  } catch {
    return undefined;
  }
}
