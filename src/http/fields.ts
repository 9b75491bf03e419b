import { z } from "@hono/zod-openapi";

/** A name or identifier: `min`–`max` characters, no control characters (C0, DEL or C1). */
export function plainText(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((value) => !/[\u0000-\u001f\u007f-\u009f]/.test(value), "must not contain control characters");
}
