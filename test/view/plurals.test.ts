import { describe, expect, it } from "vitest";
import { fill, formOf, pluralCategory } from "../../src/view/fill";
import { CATALOGUES, translator, wordsFor } from "../../src/view/messages";
import { NO_CUSTOMER } from "../../src/data/placeholders";
import { renderDashboard } from "../../src/dashboards/render";
import type { Definition } from "../../src/dashboards/definition";
import { resolvePresentation } from "../../src/view/presentation";

// Count messages choose their plural form with Intl.PluralRules for the view's locale, not
// English's "1 or not": Arabic has six categories, French counts 0 as "one".
describe("plural forms of our words", () => {
  it("Arabic picks zero, one, two, few, many and other by the count", () => {
    const t = translator("ar-EG");
    const rows = (n: number) => t("builder.rows", { count: n });
    expect([0, 1, 2, 3, 11, 100].map((n) => pluralCategory("ar-EG", n))).toEqual(["zero", "one", "two", "few", "many", "other"]);
    expect(rows(0)).toBe("لا صفوف");
    expect(rows(1)).toBe("صف واحد");
    expect(rows(2)).toBe("صفان");
    expect(rows(3)).toBe("3 صفوف");
    expect(rows(11)).toBe("11 صفًا");
    expect(rows(100)).toBe("100 صفوف");
    // A slot given already formatted (Arabic-Indic digits) takes the form of the number passed beside it.
    expect(t("panel.cut", { count: "١٢" }, 12)).toBe("تم الاقتصار على أول ١٢ صفًا.");
    expect(t("panel.cut", { count: "٢" }, 2)).toBe("تم الاقتصار على أول صفين.");
  });

  it("French counts 0 as one; English (control) does not", () => {
    expect(translator("fr-FR")("builder.rows", { count: 0 })).toBe("0 ligne");
    expect(translator("fr-FR")("builder.rows", { count: 2 })).toBe("2 lignes");
    expect(translator("en-US")("builder.rows", { count: 0 })).toBe("0 rows");
    expect(translator("en-US")("builder.rows", { count: 1 })).toBe("1 row");
    expect(translator("de-DE")("panel.cut", { count: "1" }, 1)).toBe("Gekürzt auf die erste Zeile.");
  });

  it("without a number a count message says its `other` form, which is what the catalogues show (the texts as before)", () => {
    for (const [language, catalogue] of Object.entries(CATALOGUES)) {
      const t = translator(language);
      for (const key of ["panel.cut", "panel.table_first", "builder.showing_first", "builder.rows"] as const) {
        expect(typeof catalogue[key], `${language}.${key}`).toBe("string");
        expect(t(key, { count: "1.000" }), `${language}.${key}`).toBe(fill(catalogue[key], { count: "1.000" }));
      }
    }
    // A plain text is the same whatever the count; forms without the count's category fall back to `other`.
    expect(formOf("Apply", "ar", 2)).toBe("Apply");
    expect(formOf({ one: "a", other: "b" }, "ar", 2)).toBe("b");
    // What a script filling its own words is handed keeps the forms (the catalogue keeps `other`).
    expect(formOf(wordsFor("ar-EG")["builder.rows"], "ar-EG", 2)).toBe("صفان");
    expect(wordsFor("pt-BR")).toBe(wordsFor("en"));
    // Japanese has one category: every count is `other`.
    expect(translator("ja-JP")("builder.rows", { count: 1 })).toBe("1 行");
  });
});

describe("plural forms on the dashboard page", () => {
  // A chart cut at the row limit says how many rows it shows, in the plural form of that count.
  const cutChart = (locale: string, count: number): string =>
    renderDashboard({
      definition: {
        variables: [],
        panels: [
          {
            id: "c",
            type: "bar",
            title: "C",
            layout: { x: 0, y: 0, w: 6, h: 3 },
            schema_id: 1,
            sql: "SELECT 1",
            x_column: "x",
            y_columns: ["y"],
          },
        ],
      } as unknown as Definition,
      dashboardName: "Cut",
      context: NO_CUSTOMER,
      isDemo: false,
      results: new Map([["c", { status: "ok", rows: Array.from({ length: count }, (_, i) => ({ x: `x${i}`, y: i })), truncated: true }]]),
      view: resolvePresentation({ locale }, [], []),
    });

  it("French: one row is 'la première ligne', two are 'les 2 premières' (control)", () => {
    expect(cutChart("fr-FR", 1)).toContain("Limité à la première ligne.");
    expect(cutChart("fr-FR", 2)).toContain("Limité aux 2 premières lignes.");
  });

  it("Arabic: two rows take the dual form", () => {
    expect(cutChart("ar-EG", 2)).toContain("تم الاقتصار على أول صفين.");
    expect(cutChart("ar-EG", 2)).not.toContain("{count}");
  });
});
