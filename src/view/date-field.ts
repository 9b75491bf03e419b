/**
 * Date fields in the view's date format while URLs and queries keep ISO dates. A browser's own
 * `<input type=date>` shows the browser's format, not the page's locale, so the dashboards'
 * filter form and the report builder show a text field spelled like `Intl.DateTimeFormat(locale)`
 * spells a date (`26.11.2026` in de-DE, `2026/11/26` in ja-JP), and read back what is typed in
 * that order. One file for both sides: the server writes a field's pattern and first text
 * (src/dashboards/render.ts), the frame script and the builder's script read what is typed
 * (browser code may import it: it imports nothing, scripts/check-imports.mjs BROWSER_SHARED).
 */
type Part = "year" | "month" | "day";

const OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" };

/** The order of year, month and day in the locale's short date, and the text around them. */
function layout(locale: string): { order: Part[]; parts: Intl.DateTimeFormatPart[] } {
  const parts = new Intl.DateTimeFormat(locale, OPTIONS).formatToParts(Date.UTC(2026, 10, 26));
  const order = parts.map((p) => p.type).filter((type): type is Part => type === "year" || type === "month" || type === "day");
  return { order, parts };
}

/** The locale's date as a pattern to type (`DD.MM.YYYY`, `MM/DD/YYYY`, `YYYY/MM/DD`). */
export function datePattern(locale: string): string {
  const names: Record<string, string> = { year: "YYYY", month: "MM", day: "DD" };
  return layout(locale)
    .parts.map((p) => names[p.type] ?? (p.type === "literal" ? p.value : ""))
    .join("");
}

/** An ISO date (`2026-11-26`) in the locale's format; anything else as it is. */
export function showDate(iso: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  return new Intl.DateTimeFormat(locale, OPTIONS).format(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

/** What was typed, read in the locale's order, as an ISO date; an ISO date as itself; null when it is no date. */
export function readDate(text: string, locale: string): string | null {
  const typed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(typed)) return valid(typed);
  const numbers = typed.match(/\d+/g);
  const { order } = layout(locale);
  if (numbers?.length !== 3) return null;
  const at = (part: Part) => Number(numbers[order.indexOf(part)]);
  const year = at("year");
  if (year < 1000 || year > 9999) return null;
  return valid(`${year}-${String(at("month")).padStart(2, "0")}-${String(at("day")).padStart(2, "0")}`);
}

/** The ISO date when the calendar has that day (no 31 February). */
function valid(iso: string): string | null {
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}
