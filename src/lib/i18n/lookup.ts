import { languageOf } from "./messages";

// The vendor's words by locale: of texts keyed by locale or language (`de-CH`, `de`), a view
// takes its exact locale's, then its language's, then its own text. Keys are compared as
// Intl.getCanonicalLocales spells them, case aside.

/** A locale key canonicalised (`de-ch` → `de-CH`), or null when it is not a BCP 47 tag. */
export function canonicalLocale(key: string): string | null {
  try {
    return Intl.getCanonicalLocales(key)[0] ?? null;
  } catch {
    return null;
  }
}

/** The entries of a view's locale, most specific first: the exact locale's, then its language's. */
export function entriesFor<T>(all: Readonly<Record<string, T>> | undefined, locale: string): T[] {
  if (!all) return [];
  const wanted = (canonicalLocale(locale) ?? locale).toLowerCase();
  const language = languageOf(locale);
  let exact: T | undefined;
  let general: T | undefined;
  for (const [key, texts] of Object.entries(all)) {
    const canonical = (canonicalLocale(key) ?? key).toLowerCase();
    if (canonical === wanted) exact = texts;
    else if (canonical === language) general = texts;
  }
  return [exact, general].filter((t): t is T => t !== undefined);
}
