import { z } from "@hono/zod-openapi";

/**
 * The characters that reorder or break what a reader sees (docs/api-contract.md): the bidirectional
 * embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the line and paragraph
 * separators (U+2028, U+2029). The marks right-to-left text needs (U+200E, U+200F, U+061C) and
 * the joiners (U+200C, U+200D) are not among them.
 */
const READING_ORDER_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/**
 * A name, title, subject, file name or identifier: `min`–`max` characters, no control
 * characters (C0, DEL or C1) and none of the controls that reorder text. The one field rule
 * for text a person reads elsewhere (a list, a subject line, a file name).
 */
export function plainText(min: number, max: number) {
  return (
    z
      .string()
      .min(min)
      .max(max)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this check's job
      .refine((value) => !/[\u0000-\u001f\u007f-\u009f]/.test(value), "must not contain control characters")
      .refine(
        (value) => !READING_ORDER_CONTROLS.test(value),
        "must not contain bidirectional embedding, override or isolate controls (U+202A–U+202E, U+2066–U+2069) or line/paragraph separators (U+2028, U+2029)",
      )
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
