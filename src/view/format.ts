// Values shown to a viewer, formatted with Intl for the view's locale and time zone. The
// formatters are built once per isolate for each (locale, zone, options) and reused: building
// an Intl formatter costs far more than calling one. Exports (CSV, XLSX, JSON) never come here.

export const COLUMN_STYLES = ["text", "number", "currency", "percent", "date", "datetime", "month"] as const;
export type ColumnStyle = (typeof COLUMN_STYLES)[number];

/** How one column is shown (a panel's `column_formats` entry). */
export interface ColumnFormat {
  style: ColumnStyle;
  currency?: string;
  decimals?: number;
}

/** Where a view is shown: its locale and time zone. */
export interface ViewClock {
  locale: string;
  timezone: string;
}

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The isolate's cached NumberFormat for a locale and options (one per distinct pair). */
export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, options);
    numberFormats.set(key, format);
  }
  return format;
}

/** The isolate's cached DateTimeFormat for a locale and options. */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    dateFormats.set(key, format);
  }
  return format;
}

/** How many formatters the isolate holds (the cache is bounded by locales × zones × styles in use). */
export function cachedFormatterCount(): number {
  return numberFormats.size + dateFormats.size;
}

/** The Intl options of each style (dates and months are calendar values: they carry no zone). */
export const DATE_OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" };
export const MONTH_OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "long", timeZone: "UTC" };
export function dateTimeOptions(timezone: string): Intl.DateTimeFormatOptions {
  return { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", timeZone: timezone };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_MONTH = /^(\d{4})-(\d{2})$/;
/** A date-time that names its instant: a `Z` or an offset (a bare local time is left as it is). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The formatted number of a number (a plain number, a currency or a percent). */
export function formatNumber(
  value: number,
  locale: string,
  options: { style?: "number" | "currency" | "percent"; currency?: string; decimals?: number } = {},
): string {
  const opts: Intl.NumberFormatOptions = {};
  if (options.decimals !== undefined) {
    opts.minimumFractionDigits = options.decimals;
    opts.maximumFractionDigits = options.decimals;
  } else if (options.style !== "currency") {
    opts.maximumFractionDigits = 2;
  }
  if (options.style === "percent") opts.style = "percent";
  if (options.style === "currency" && options.currency && /^[A-Z]{3}$/.test(options.currency)) {
    opts.style = "currency";
    opts.currency = options.currency;
  }
  return numberFormat(locale, opts).format(value);
}

/** A calendar date (`2026-03-01`) in the locale's way; the zone never moves it to another day. */
function formatDate(text: string, locale: string): string | null {
  const m = ISO_DATE.exec(text);
  if (!m) return null;
  const time = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(time) ? null : dateTimeFormat(locale, DATE_OPTIONS).format(time);
}

function formatMonth(text: string, locale: string): string | null {
  const m = ISO_MONTH.exec(text) ?? ISO_DATE.exec(text);
  if (!m) return null;
  return dateTimeFormat(locale, MONTH_OPTIONS).format(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

/** An instant in the view's time zone, with the locale's date and time. */
function formatInstant(value: string | number | Date, clock: ViewClock): string | null {
  const time = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value.replace(" ", "T"));
  if (!Number.isFinite(time)) return null;
  return dateTimeFormat(clock.locale, dateTimeOptions(clock.timezone)).format(time);
}

/**
 * One result value as a viewer reads it. Without a column format: numbers with the locale's
 * separators, ISO dates as the locale's date, instants (`…Z`, `…+02:00`) in the view's zone,
 * `YYYY-MM` as the locale's month; anything else as it is.
 */
export function formatValue(value: unknown, clock: ViewClock, format?: ColumnFormat): string {
  if (value === null || value === undefined) return "";
  const style = format?.style;
  if (style === "text") return typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return String(value);
    if (style === "datetime") return formatInstant(value, clock) ?? String(value);
    const numeric = style === "currency" || style === "percent" ? style : "number";
    return formatNumber(value, clock.locale, { style: numeric, currency: format?.currency, decimals: format?.decimals });
  }
  if (typeof value === "string") {
    if (style === "number" || style === "currency" || style === "percent") {
      const n = Number(value);
      if (value.trim() !== "" && Number.isFinite(n)) return formatValue(n, clock, format);
      return value;
    }
    if (style === "date") return formatDate(value.slice(0, 10), clock.locale) ?? value;
    if (style === "month") return formatMonth(value, clock.locale) ?? value;
    if (style === "datetime") return formatInstant(value, clock) ?? value;
    if (ISO_DATE.test(value)) return formatDate(value, clock.locale) ?? value;
    if (ISO_MONTH.test(value)) return formatMonth(value, clock.locale) ?? value;
    if (ISO_INSTANT.test(value)) return formatInstant(value, clock) ?? value;
    return value;
  }
  if (typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
