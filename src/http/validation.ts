import type { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";

/** The first zod issue as a `validation_error` naming the offending field (dotted path). */
export function validationError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue.path.map(String).join(".");
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  const message = missing ? `${field || "body"} is required.` : `${field || "body"}: ${issue.message}`;
  return new ApiError("validation_error", message, field || undefined);
}

/** zod-openapi hook: every request validation failure becomes the standard envelope. */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (!result.success) throw validationError(result.error as z.ZodError);
}
