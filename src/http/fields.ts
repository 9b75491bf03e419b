import { z } from "@hono/zod-openapi";

/** A name or identifier: `min`–`max` characters, no control characters (C0, DEL or C1). */
export function plainText(min: number, max: number) {
  return (
    z
      .string()
      .min(min)
      .max(max)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this check's job
      .refine((value) => !/[\u0000-\u001f\u007f-\u009f]/.test(value), "must not contain control characters")
  );
}

/** An e-mail address (at most 320 characters, the longest an address can be). */
export const Email = z.email().max(320);

/** A dashboard's embed id: 1–64 letters, digits, `_` or `-`. */
export const EmbedId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "1–64 letters, digits, '_' or '-'")
  .openapi({ description: "The dashboard's embed id.", example: "sales-overview" });

const MAX_JSON_OBJECT_BYTES = 64 * 1024;

/** A JSON object of any values, at most 64 KiB when serialised (properties, attributes). */
export function jsonObject64KiB() {
  return z
    .record(z.string(), z.unknown())
    .refine(
      (value) => new TextEncoder().encode(JSON.stringify(value)).byteLength <= MAX_JSON_OBJECT_BYTES,
      "must be at most 64 KiB as JSON",
    );
}

/** Customer, download and share tokens: 64 lowercase hex characters (256 bits). */
export const HEX_TOKEN = /^[0-9a-f]{64}$/;
