import { ar } from "./words/ar";
import { de } from "./words/de";
import { fill, formOf, type SlotValues } from "./fill";
import { type Catalogue, en, type MessageKey, type Words } from "./words/en";
import { es } from "./words/es";
import { fr } from "./words/fr";
import { ja } from "./words/ja";

// Our own words (buttons, notes, messages, e-mail footers, the unsubscribe page) in one
// catalogue per language; a page takes the catalogue of its locale's language, else English.
// The vendor's words are the definitions' `translations`, not these. A count message ("cut at
// the first {count} rows") may be written as its plural forms, chosen by Intl.PluralRules for
// the view's locale (src/view/fill.ts): Arabic has six, Japanese one, French counts 0 as "one".

export type { Catalogue, MessageKey, Words };

/** Every language's words as written (count messages with their plural forms), by language subtag. */
const WORDS: Readonly<Record<string, Words>> = { en, de, fr, es, ja, ar };

/** A language's words without a count: each key's text, a count message's `other` form. */
function textsOf(words: Words): Catalogue {
  return Object.fromEntries(Object.entries(words).map(([key, wording]) => [key, formOf(wording, "en")])) as Catalogue;
}

/** Every catalogue by its language subtag (test/view/catalogue.test.ts proves each has every key of `en`). */
export const CATALOGUES: Readonly<Record<string, Catalogue>> = Object.fromEntries(
  Object.entries(WORDS).map(([language, words]) => [language, textsOf(words)]),
);

/** The language of a BCP 47 tag (`de-CH` → `de`), lower-cased. */
export function languageOf(locale: string): string {
  return locale.split("-")[0].toLowerCase();
}

/** The catalogue of a locale's language, else English. */
export function catalogueFor(locale: string): Catalogue {
  return CATALOGUES[languageOf(locale)] ?? CATALOGUES.en;
}

/** A locale's words as written, count messages with their plural forms (what a script that fills its own words is handed), else English's. */
export function wordsFor(locale: string): Words {
  return WORDS[languageOf(locale)] ?? en;
}

/**
 * A function that says a key in a locale's language: `t("panel.cut", { count })`. A count
 * message takes the plural form of `count` (the third argument: the number, when the slot is
 * given already formatted, `t("panel.cut", { count: "1.000" }, 1000)`), else of a numeric
 * `values.count`; without a number, its `other` form. Values go in as given: callers escape for HTML.
 */
export type Translator = (key: MessageKey, values?: SlotValues, count?: number) => string;

export function translator(locale: string): Translator {
  const words = wordsFor(locale);
  return (key, values, count) => fill(formOf(words[key], locale, count ?? numericCount(values)), values);
}

function numericCount(values: SlotValues | undefined): number | undefined {
  return typeof values?.count === "number" ? values.count : undefined;
}

/** Scripts written right to left: their pages are `dir="rtl"` and mirrored. */
const RTL_LANGUAGES = new Set(["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ps", "sd", "ug", "ur", "yi"]);

export function directionOf(locale: string): "ltr" | "rtl" {
  return RTL_LANGUAGES.has(languageOf(locale)) ? "rtl" : "ltr";
}
