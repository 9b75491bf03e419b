/**
 * Our own words on the builder page, in the view's language: the page's boot data carries the
 * `builder.*` entries of the view's message catalogue (src/view/words/), without their prefix,
 * so the script ships no catalogue of its own and every language costs the page only its words.
 */
let words: Record<string, string> = {};
/** The view's locale, for numbers and dates the page itself formats. */
export let locale = "en-US";

export function setWords(given: Record<string, string> | undefined, viewLocale: string | undefined): void {
  words = given || {};
  if (viewLocale) locale = viewLocale;
}

/** A word by its key (`builder.<key>` in the catalogues), its `{slots}` filled; the key itself when missing. */
export function t(key: string, values: Record<string, string | number> = {}): string {
  const text = words[key] ?? key;
  return text.replace(/\{([a-z_]+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot));
}
