import { describe, expect, it } from "vitest";
import { NO_CUSTOMER } from "../../src/data/placeholders";
import { type RenderInput, renderDashboard } from "../../src/dashboards/render";
import { resolvePresentation } from "../../src/view/presentation";
import { CATALOGUES } from "../../src/view/messages";
import { datePattern } from "../../src/view/date-field";
import { admin, dashboard, kpi, unique } from "../helpers/dashboards";
import type { Definition } from "../../src/dashboards/definition";

// The dashboard page in a view's locale: our words from the catalogue, numbers and dates with
// Intl, `<html lang dir>` — drawn directly (the page's locale comes from the presentation).
const definition = {
  variables: [{ name: "region", control: { type: "select", options: ["eu", "us"] } }],
  panels: [
    {
      id: "revenue",
      type: "kpi",
      title: "Revenue",
      layout: { x: 0, y: 0, w: 4, h: 2 },
      schema_id: 1,
      sql: "SELECT 1",
      format: { style: "currency", currency: "EUR" },
    },
    {
      id: "rows",
      type: "table",
      title: "Rows",
      layout: { x: 4, y: 0, w: 8, h: 4 },
      schema_id: 1,
      sql: "SELECT 1",
      column_formats: { share: { style: "percent", decimals: 1 }, at: { style: "datetime" } },
    },
    { id: "empty", type: "table", title: "Empty", layout: { x: 0, y: 4, w: 4, h: 2 }, schema_id: 1, sql: "SELECT 1" },
  ],
} as unknown as Definition;

function page(locale: string, timezone = "UTC"): string {
  const input: RenderInput = {
    definition,
    dashboardName: "Sales",
    context: { ...NO_CUSTOMER, variables: { region: "eu" } },
    isDemo: false,
    results: new Map([
      ["revenue", { status: "ok", rows: [{ value: 45708 }], truncated: false }],
      ["rows", { status: "ok", rows: [{ amount: 1234.5, day: "2026-03-01", share: 0.125, at: "2026-03-01T23:30:00Z" }], truncated: true }],
      ["empty", { status: "ok", rows: [], truncated: false }],
    ]),
    interaction: { path: "/embed/x", query: {}, locked: [] },
    view: resolvePresentation({ locale, timezone }, [], []),
  };
  return renderDashboard(input);
}

describe("a dashboard page in a locale", () => {
  it("de-DE: German words, German numbers, dates and currency", () => {
    const html = page("de-DE", "Europe/Berlin");
    const de = CATALOGUES.de;
    expect(html).toContain('<html lang="de-DE" dir="ltr"');
    expect(html).toContain(`<button type="submit">${de["filter.apply"]}</button>`);
    expect(html).toContain(de["panel.empty"]);
    expect(html).toContain(
      new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR", minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(
        45708,
      ),
    );
    expect(html).toContain(`>${new Intl.NumberFormat("de-DE", { maximumFractionDigits: 2 }).format(1234.5)}<`);
    expect(html).toContain(
      new Intl.DateTimeFormat("de-DE", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" }).format(Date.UTC(2026, 2, 1)),
    );
    expect(html).toContain(
      `>${new Intl.NumberFormat("de-DE", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(0.125)}<`,
    );
    expect(html).toContain(
      new Intl.DateTimeFormat("de-DE", {
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        timeZone: "Europe/Berlin",
      }).format(Date.parse("2026-03-01T23:30:00Z")),
    );
    expect(html).not.toContain(">Apply<");
  });

  it("ar-EG: right to left, Arabic words; en-US stays as it was (control)", () => {
    const ar = page("ar-EG");
    expect(ar).toContain('<html lang="ar-EG" dir="rtl"');
    expect(ar).toContain(CATALOGUES.ar["filter.apply"]);
    const en = page("en-US");
    expect(en).toContain('<html lang="en-US" dir="ltr"');
    expect(en).toContain('<button type="submit">Apply</button>');
    expect(en).toContain("No data for this selection.");
    const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", minimumFractionDigits: 0, maximumFractionDigits: 0 });
    expect(en).toContain(`>${usd.format(45708)}<`);
  });
});

describe("column_formats", () => {
  it("an unknown style is refused on save (400 at the field); the known styles save", async () => {
    const schema = (await admin("POST", "/admin/schemas/", { name: unique("sales") })).body.schema.id as number;
    const id = await dashboard({ panels: [kpi("k", schema, "SELECT 1 AS value")] });
    const table = (style: string) => ({ ...kpi("k", schema, "SELECT 1 AS value"), type: "table", column_formats: { value: { style } } });
    const refused = await admin("POST", "/admin/dashboard_versions/", { embed_id: id, definition: { panels: [table("money")] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "definition.panels.0.column_formats.value.style" });
    for (const style of ["text", "number", "currency", "percent", "date", "datetime", "month"]) {
      const saved = await admin("POST", "/admin/dashboard_versions/", { embed_id: id, definition: { panels: [table(style)] } });
      expect(saved.status, style).toBe(200);
    }
  });

  it("a date control shows the locale's date format (Intl's parts), the form submits the ISO date", () => {
    const dated = {
      variables: [{ name: "since", default: "2026-03-01", control: { type: "date", label: "Since" } }],
      panels: [{ id: "k", type: "kpi", title: "K", layout: { x: 0, y: 0, w: 4, h: 2 }, schema_id: 1, sql: "SELECT 1" }],
    } as unknown as Definition;
    for (const locale of ["de-DE", "ja-JP", "en-US", "ar-EG"]) {
      const html = renderDashboard({
        definition: dated,
        dashboardName: "Sales",
        context: { ...NO_CUSTOMER, variables: { since: "2026-03-01" } },
        isDemo: false,
        results: new Map([["k", { status: "ok", rows: [{ value: 1 }], truncated: false }]]),
        interaction: { path: "/embed/x", query: {}, locked: [] },
        view: resolvePresentation({ locale }, [], []),
      });
      const shown = new Intl.DateTimeFormat(locale, { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" }).format(
        Date.UTC(2026, 2, 1),
      );
      const field = /<input type="text" id="var_since" value="([^"]*)" data-date-of="var_since" placeholder="([^"]*)"/.exec(html);
      expect(field?.[1], locale).toBe(shown);
      // The pattern follows the locale's order of day, month and year.
      const pattern = field![2];
      const order = new Intl.DateTimeFormat(locale, { year: "numeric", month: "2-digit", day: "2-digit" })
        .formatToParts(0)
        .map((p) => p.type)
        .filter((t) => t !== "literal");
      expect(
        [...pattern.matchAll(/YYYY|MM|DD/g)].map((m) => ({ YYYY: "year", MM: "month", DD: "day" })[m[0]]),
        locale,
      ).toEqual(order);
      // What the form submits: the ISO date (no date input of the browser's format).
      expect(html).toContain('<input type="hidden" name="var_since" value="2026-03-01">');
      expect(html).not.toContain('type="date"');
    }
    // Our pattern notation, for a person to read: day.month.year in German, year/month/day in Japanese.
    expect(datePattern("de-DE")).toBe("DD.MM.YYYY");
    expect(datePattern("ja-JP")).toBe("YYYY/MM/DD");
  });
});
