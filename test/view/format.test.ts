import { describe, expect, it } from "vitest";
import { cachedFormatterCount, formatValue } from "../../src/view/format";

// Every expectation is the runtime's own Intl for the same locale and options (never a
// hand-typed string), so a different ICU version cannot make the test lie.
const view = (locale: string, timezone = "UTC") => ({ locale, timezone });

describe("formatValue", () => {
  it("numbers, currencies and percentages follow the locale", () => {
    for (const locale of ["en-US", "de-DE", "fr-FR", "ja-JP", "ar-EG"]) {
      expect(formatValue(45708.5, view(locale))).toBe(new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(45708.5));
      expect(formatValue(45708, view(locale), { style: "currency", currency: "EUR", decimals: 0 })).toBe(
        new Intl.NumberFormat(locale, { style: "currency", currency: "EUR", minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(
          45708,
        ),
      );
      expect(formatValue(0.125, view(locale), { style: "percent", decimals: 1 })).toBe(
        new Intl.NumberFormat(locale, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(0.125),
      );
    }
    // The euro the German way is not the American way.
    expect(formatValue(45708, view("de-DE"), { style: "currency", currency: "EUR", decimals: 0 })).not.toBe(
      formatValue(45708, view("en-US"), { style: "currency", currency: "EUR", decimals: 0 }),
    );
  });

  it("dates, months and instants follow the locale; instants the view's time zone", () => {
    const date = new Intl.DateTimeFormat("de-DE", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" });
    expect(formatValue("2026-03-01", view("de-DE", "America/Los_Angeles"))).toBe(date.format(Date.UTC(2026, 2, 1)));
    const month = new Intl.DateTimeFormat("fr-FR", { year: "numeric", month: "long", timeZone: "UTC" });
    expect(formatValue("2026-03", view("fr-FR"))).toBe(month.format(Date.UTC(2026, 2, 1)));
    expect(formatValue("2026-03-17", view("fr-FR"), { style: "month" })).toBe(month.format(Date.UTC(2026, 2, 1)));
    const instant = "2026-03-01T10:30:00+02:00";
    const berlin = new Intl.DateTimeFormat("de-DE", {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "Europe/Berlin",
    });
    expect(formatValue(instant, view("de-DE", "Europe/Berlin"))).toBe(berlin.format(Date.parse(instant)));
    // Control: text that only looks like a number or date stays as it is, and `text` keeps it raw.
    expect(formatValue("2026-03-01 or so", view("de-DE"))).toBe("2026-03-01 or so");
    expect(formatValue(1234.5, view("de-DE"), { style: "text" })).toBe("1234.5");
  });

  it("a date-time near midnight UTC lands on the viewer's local day in Tokyo and Los Angeles", () => {
    const instant = "2026-03-01T23:30:00Z";
    const day = (zone: string) =>
      new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: zone }).format(Date.parse(instant));
    expect(day("Asia/Tokyo")).toBe("2026-03-02");
    expect(day("America/Los_Angeles")).toBe("2026-03-01");
    for (const zone of ["Asia/Tokyo", "America/Los_Angeles"]) {
      const shown = formatValue(instant, view("en-CA", zone), { style: "datetime" });
      expect(shown.startsWith(day(zone))).toBe(true);
    }
    // The day of a just-after-midnight instant in Los Angeles is the previous one.
    expect(formatValue("2026-03-02T00:30:00Z", view("en-CA", "America/Los_Angeles")).startsWith("2026-03-01")).toBe(true);
  });

  it("reuses its formatters (one per locale, zone and style in this isolate)", () => {
    formatValue(1, view("es-ES"));
    const before = cachedFormatterCount();
    for (let i = 0; i < 100; i++) formatValue(i + 0.5, view("es-ES"));
    expect(cachedFormatterCount()).toBe(before);
  });
});
