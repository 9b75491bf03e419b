import { fill, formOf, type SlotValues, type Wording } from "../../view/fill";

/**
 * Our own words on the builder page, in the view's language: the page's boot data carries the
 * `builder.*` entries of the view's message catalogue (src/view/words/), without their prefix,
 * so the script ships no catalogue of its own and every language costs the page only its words.
 * Slots and plural forms are made into text by the same file as on the server (src/view/fill.ts).
 */
let words: Record<string, Wording> = {};
/** The view's locale, for numbers and dates the page itself formats. */
export let locale = "en-US";

export function setWords(given: Record<string, Wording> | undefined, viewLocale: string | undefined): void {
  words = given || {};
  if (viewLocale) locale = viewLocale;
}

/**
 * A word by its key (`builder.<key>` in the catalogues), its `{slots}` filled; the key itself
 * when missing. A count message takes the form of `count` (else of a numeric `values.count`).
 */
export function t(key: string, values: SlotValues = {}, count?: number): string {
  const numeric = count ?? (typeof values.count === "number" ? values.count : undefined);
  return fill(formOf(words[key] ?? key, locale, numeric), values);
}
