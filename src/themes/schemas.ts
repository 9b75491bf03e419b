import { z } from "@hono/zod-openapi";
import type { ThemeDocument } from "../view/presentation";

// The theme operations' bodies and answer (docs/theming.md). Shape errors are 400
// validation_error on the field; what needs the bytes (signatures) or the colors together
// (contrast) is checked by the service.

// Letters and digits of any script (\p{L}, \p{N}) need the regular expression's `u` flag, which
// the OpenAPI document cannot carry in a `pattern` (it would publish a different expression):
// these are checked by refinements, and the document states the rule in words.
const THEME_NAME = /^[\p{L}\p{N} _.-]{1,64}$/u;
const FONT_FAMILY = /^[\p{L}\p{N} ,"'-]{1,200}$/u;
const FONT_NAME = /^[\p{L}\p{N} _-]{1,64}$/u;

const Color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "must be a color #rrggbb")
  .transform((value) => value.toLowerCase())
  .openapi({ type: "string", example: "#7c9cff" });

export const ThemeName = z
  .string()
  .refine((value) => THEME_NAME.test(value), "1–64 letters, digits, spaces, '_', '.' or '-'")
  .refine((value) => value.trim().length > 0, "must not be only spaces")
  .openapi({ example: "Acme dark" });

const FontFamily = z
  .string()
  .refine((value) => FONT_FAMILY.test(value), "1–200 letters, digits, spaces, commas, hyphens and quotes")
  .openapi({ example: '"Acme Sans", system-ui, sans-serif' });

/**
 * Base64 text (standard alphabet, padding optional): whole groups of four, then a last group of
 * two or three, padded or not — exactly what the service's atob decodes, so the pattern the
 * document states refuses what the server refuses. Its decoded size is checked by the service.
 */
const Base64 = z
  .string()
  .min(4)
  .max(600_000)
  .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/, "must be base64")
  .openapi({ contentEncoding: "base64" } as object);

const Font = z.object({
  family: z
    .string()
    .refine((value) => FONT_NAME.test(value), "1–64 letters, digits, spaces, '_' or '-'")
    .openapi({ example: "Acme Sans" }),
  weight: z.number().int().min(100).max(900).default(400),
  style: z.enum(["normal", "italic"]).default("normal"),
  woff2_base64: Base64.openapi({ description: "A WOFF2 file, at most 300 KB decoded." }),
});

export const ThemeBody = z
  .object({
    mode: z.enum(["light", "dark"]).default("light").openapi({ description: "Which built-in palette fills the colors left out." }),
    colors: z
      .object({
        background: Color.optional(),
        surface: Color.optional(),
        text: Color.optional(),
        muted_text: Color.optional(),
        border: Color.optional(),
        accent: Color.optional(),
        series: z.array(Color).min(1).max(12).optional(),
      })
      .strict()
      .default({}),
    font_family: FontFamily.optional(),
    radius: z.number().int().min(0).max(24).optional().openapi({ description: "Panel corners in px (0–24)." }),
    decals: z.boolean().optional().openapi({
      description:
        "Charts draw their series with patterns as well as colors, for viewers who cannot tell the colors apart (default false).",
    }),
    fonts: z.array(Font).max(4).default([]),
    logo_base64: Base64.optional().openapi({ description: "A PNG, JPEG or WebP, at most 100 KB decoded." }),
  })
  .strict()
  .openapi("ThemeInput");
export type ThemeInput = z.infer<typeof ThemeBody>;

export const CreateThemeBody = z
  .object({ name: ThemeName, theme: ThemeBody, is_default: z.boolean().optional() })
  .openapi("CreateThemeRequest");

export const UpdateThemeBody = z
  .object({
    name: ThemeName.openapi({ description: "The theme to change." }),
    new_name: ThemeName.optional(),
    theme: ThemeBody.optional().openapi({ description: "Replaces the theme (what it leaves out comes from its mode's palette)." }),
    is_default: z.boolean().optional(),
  })
  .openapi("UpdateThemeRequest");

export const DeleteThemeBody = z.object({ name: ThemeName }).openapi("DeleteThemeRequest");

const ColorOut = z.string().openapi({ example: "#7c9cff" });

export const ThemeSchema = z
  .object({
    name: z.string(),
    is_default: z.boolean(),
    theme: z.object({
      mode: z.enum(["light", "dark"]),
      colors: z.object({
        background: ColorOut,
        surface: ColorOut,
        text: ColorOut,
        muted_text: ColorOut,
        border: ColorOut,
        accent: ColorOut,
        series: z.array(ColorOut),
      }),
      font_family: z.string(),
      radius: z.number().int(),
      decals: z.boolean(),
      fonts: z.array(
        z.object({
          family: z.string(),
          weight: z.number().int(),
          style: z.enum(["normal", "italic"]),
          url: z.string().openapi({ description: "Absolute; served immutable from this service." }),
        }),
      ),
      logo_url: z.string().nullable(),
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Theme");
export type Theme = z.infer<typeof ThemeSchema>;

// The themes table's document column stores the view's theme document (src/view/presentation.ts):
// declared here, next to the capability that stores it, so the view floor never names the schema.
declare module "../db/schema/columns" {
  interface JsonColumns {
    "themes.document": ThemeDocument;
  }
}
