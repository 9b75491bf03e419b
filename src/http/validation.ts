import type { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";

/** The value at a zod issue's path in what was validated (undefined when absent). */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The first zod issue as a `validation_error` naming the offending field (dotted path). */
export function validationError(error: z.ZodError, input: unknown): ApiError {
  const { field, missing, message } = describeIssue(error.issues[0], input);
  return new ApiError(
    "validation_error",
    missing ? `${field || "body"} is required.` : `${field || "body"}: ${message}`,
    field || undefined,
  );
}

/** A zod issue as a dotted field, whether that field is missing, and zod's (or our) message. */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): { field: string; missing: boolean; message: string } {
  // A missing field is told apart by the input itself, not by the wording of zod's message.
  const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
  return { field: issue.path.map(String).join("."), missing, message: missing ? "required" : issue.message };
}

/**
 * zod-openapi hook: every request validation failure becomes the standard envelope. A valid
 * request is refused too when a string it uses (value or key) holds a lone UTF-16
 * surrogate: `"\ud800"` is valid JSON but not Unicode, and storing it would silently turn
 * it into U+FFFD. Checked on the parsed data, so ignored unknown fields stay ignored.
 */
export function validationHook(result: { success: boolean; error?: unknown; data?: unknown }): void {
  if (!result.success) throw validationError(result.error as z.ZodError, result.data);
  const field = loneSurrogatePath(result.data, []);
  if (field !== undefined) {
    throw new ApiError(
      "validation_error",
      `${field || "body"}: must be valid Unicode (it holds a lone UTF-16 surrogate).`,
      field || undefined,
    );
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
