/**
 * The first text of a date filter field, in the locale's date format (`26.11.2026` in de-DE),
 * and the pattern it asks for (`DD.MM.YYYY`). The field's script reads what is typed back into
 * the ISO date the URL keeps (src/http/browser/date-field.ts, which spells dates with the same
 * Intl options; browser code is bundled apart, so the two tiny functions live twice).
 */
const OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" };

/** The locale's date as a pattern to type (`DD.MM.YYYY`, `MM/DD/YYYY`, `YYYY/MM/DD`). */
export function datePattern(locale: string): string {
  const names: Record<string, string> = { year: "YYYY", month: "MM", day: "DD" };
  return new Intl.DateTimeFormat(locale, OPTIONS)
    .formatToParts(Date.UTC(2026, 10, 26))
    .map((p) => names[p.type] ?? (p.type === "literal" ? p.value : ""))
    .join("");
}

/** An ISO date (`2026-11-26`) in the locale's format; anything else as it is. */
export function showDate(iso: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  return new Intl.DateTimeFormat(locale, OPTIONS).format(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}
