import { ar } from "./words/ar";
import { de } from "./words/de";
import { type Catalogue, en, type MessageKey } from "./words/en";
import { es } from "./words/es";
import { fr } from "./words/fr";
import { ja } from "./words/ja";

// Our own words (buttons, notes, messages, e-mail footers, the unsubscribe page) in one
// catalogue per language; a page takes the catalogue of its locale's language, else English.
// The vendor's words are the definitions' `translations`, not these.

export type { Catalogue, MessageKey };

/** Every catalogue by its language subtag (test/view/catalogue.test.ts proves each has every key of `en`). */
export const CATALOGUES: Readonly<Record<string, Catalogue>> = { en, de, fr, es, ja, ar };

/** The language of a BCP 47 tag (`de-CH` → `de`), lower-cased. */
export function languageOf(locale: string): string {
  return locale.split("-")[0].toLowerCase();
}

/** The catalogue of a locale's language, else English. */
export function catalogueFor(locale: string): Catalogue {
  return CATALOGUES[languageOf(locale)] ?? en;
}

/** A message with its `{name}` slots filled (the values as given: callers escape for HTML). */
export function fill(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{([a-z_]+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot));
}

/** A function that says a key in a locale's language: `t("panel.cut", { count })`. */
export type Translator = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(locale: string): Translator {
  const catalogue = catalogueFor(locale);
  return (key, values) => fill(catalogue[key], values);
}

/** Scripts written right to left: their pages are `dir="rtl"` and mirrored. */
const RTL_LANGUAGES = new Set(["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ps", "sd", "ug", "ur", "yi"]);

export function directionOf(locale: string): "ltr" | "rtl" {
  return RTL_LANGUAGES.has(languageOf(locale)) ? "rtl" : "ltr";
}
