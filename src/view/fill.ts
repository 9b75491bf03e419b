// A message of our words made into text: its plural form chosen for a count, its `{slots}`
// filled. Pure (no import, no Worker or DOM API): the server's translator (messages.ts) and the
// report builder's script (src/report-builder/browser/words.ts) both use this one file.

/** A plural category as Intl.PluralRules names it (CLDR): `other` is every language's catch-all. */
export type PluralCategory = "zero" | "one" | "two" | "few" | "many" | "other";

/** A count message's forms: `other` always, the other categories where the language has them. */
export type PluralForms = { other: string } & Partial<Record<Exclude<PluralCategory, "other">, string>>;

/** One message: a text, or forms chosen by a count. */
export type Wording = string | PluralForms;

/** Slot values: what `{name}` in a text is replaced by (as given: callers escape for HTML). */
export type SlotValues = Record<string, string | number>;

const rules = new Map<string, Intl.PluralRules>();

/** The plural category of `count` in a locale's language; one PluralRules per locale, kept for the isolate or page. */
export function pluralCategory(locale: string, count: number): PluralCategory {
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale);
    rules.set(locale, rule);
  }
  return rule.select(count);
}

/** The form of a message for `count` (its `other` form without a count, or where the language's category has none). */
export function formOf(wording: Wording, locale: string, count?: number): string {
  if (typeof wording === "string") return wording;
  if (count === undefined || !Number.isFinite(count)) return wording.other;
  return wording[pluralCategory(locale, count)] ?? wording.other;
}

/** A message with its `{name}` slots filled (a slot without a value stays as written). */
export function fill(text: string, values: SlotValues = {}): string {
  return text.replace(/\{([a-z_]+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot));
}
