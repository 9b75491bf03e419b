import { languageOf } from "./messages";

// The vendor's words by locale — a dashboard definition's `translations`, a blueprint table's —
// each a map from a locale or language key (`de-CH`, `de`) to texts. The one fallback rule: a
// view takes its exact locale's text, then its language's, then its own text. Keys are compared
// as Intl.getCanonicalLocales spells them, case aside. What a key inside may name is the
// owner's to check against its own document (translationKeyProblem for a definition).

/**
 * A locale key's shape as the OpenAPI document and the dashboard JSON Schema state it (JSON Schema
 * `propertyNames`): a Unicode BCP 47 locale id — language, script, region, variants, extensions,
 * private use — letters in either case. canonicalLocaleKey is the server's check; it refuses the
 * same keys and, beyond a pattern's reach, a repeated extension singleton or a malformed `-u-` key.
 */
export const LOCALE_KEY_PATTERN =
  "^(?:[A-Za-z]{2,3}|[A-Za-z]{5,8})(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*" +
  "(?:-[0-9A-WYZa-wyz](?:-[A-Za-z0-9]{2,8})+)*(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?$";

/** The JSON Schema of a translations map's keys (spread into the map's metadata). */
export const localeKeyNames = { propertyNames: { type: "string", pattern: LOCALE_KEY_PATTERN } } as object;

/** A locale key canonicalised (`de-ch` → `de-CH`), or null when it is not a BCP 47 tag. */
export function canonicalLocaleKey(key: string): string | null {
  try {
    return Intl.getCanonicalLocales(key)[0] ?? null;
  } catch {
    return null;
  }
}

/** The entries of a view's locale, most specific first: the exact locale's, then its language's. */
export function entriesFor<T>(all: Readonly<Record<string, T>> | undefined, locale: string): T[] {
  if (!all) return [];
  const wanted = (canonicalLocaleKey(locale) ?? locale).toLowerCase();
  const language = languageOf(locale);
  let exact: T | undefined;
  let general: T | undefined;
  for (const [key, texts] of Object.entries(all)) {
    const canonical = (canonicalLocaleKey(key) ?? key).toLowerCase();
    if (canonical === wanted) exact = texts;
    else if (canonical === language) general = texts;
  }
  return [exact, general].filter((t): t is T => t !== undefined);
}

/** The texts of one view's locale from keyed text maps: the language's entries, overridden by the exact locale's. */
export function translationsFor(all: Readonly<Record<string, Record<string, string>>> | undefined, locale: string): Record<string, string> {
  const [first, second] = entriesFor(all, locale);
  return { ...second, ...first };
}

// ---- a dashboard definition's keys ------------------------------------------------------------

/** The shape a definition's translations key may have (what it names is checked against the definition). */
const KEY =
  /^(?:title|panels\.[A-Za-z0-9_-]{1,64}\.(?:title|text)|variables\.[A-Za-z_][A-Za-z0-9_]{0,63}\.label|options\.[A-Za-z_][A-Za-z0-9_]{0,63}\..+|columns\..+)$/s;

/** What of a definition its translations keys may name: panels (text panels have a text) and variables with their options. */
export interface TranslatableNames {
  panels: readonly { id: string; type: string }[];
  variables: readonly { name: string; control?: { options?: readonly string[] } }[];
}

/** Why a translations key names nothing of this definition, or null when it is fine. */
export function translationKeyProblem(definition: TranslatableNames, key: string): string | null {
  if (!KEY.test(key)) {
    return "unknown translation key; use title, panels.<id>.title, panels.<id>.text, variables.<name>.label, options.<variable>.<value> or columns.<name>";
  }
  const [kind, name, ...rest] = key.split(".");
  if (kind === "panels") {
    const panel = definition.panels.find((p) => p.id === name);
    if (!panel) return `there is no panel '${name}'`;
    if (rest[0] === "text" && panel.type !== "text") return `panel '${name}' is not a text panel`;
  }
  if (kind === "variables" && !definition.variables.some((v) => v.name === name)) return `there is no variable '${name}'`;
  if (kind === "options") {
    const variable = definition.variables.find((v) => v.name === name);
    if (!variable) return `there is no variable '${name}'`;
    const value = rest.join(".");
    if (!(variable.control?.options ?? []).includes(value)) return `variable '${name}' has no option '${value}'`;
  }
  return null;
}
