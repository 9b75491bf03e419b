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

/**
 * zod-openapi hook: every request validation failure becomes the standard envelope. A valid
 * request is refused too when a string it uses (value or key) holds a lone UTF-16
 * surrogate: `"\ud800"` is valid JSON but not Unicode, and storing it would silently turn
 * it into U+FFFD. Checked on the parsed data, so ignored unknown fields stay ignored.
 */
export function validationHook(result: { success: boolean; error?: unknown; data?: unknown }): void {
  if (!result.success) throw validationError(result.error as z.ZodError);
  const field = loneSurrogatePath(result.data, []);
  if (field !== undefined) {
    throw new ApiError("validation_error", `${field || "body"}: must be valid Unicode (it holds a lone UTF-16 surrogate).`, field || undefined);
  }
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path of the first string (or key) with a lone surrogate, if any. */
function loneSurrogatePath(value: unknown, path: string[]): string | undefined {
  if (typeof value === "string") return loneSurrogate.test(value) ? path.join(".") : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = [...path, key];
    if (loneSurrogate.test(key)) return here.join(".");
    const found = loneSurrogatePath(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}
