import { describe, expect, it } from "vitest";
import { NO_CUSTOMER } from "../../src/data/placeholders";
import { axisNumber, cartesianChart } from "../../src/dashboards/charts";
import { CLICK_STYLE } from "../../src/dashboards/clicks";
import type { Definition } from "../../src/dashboards/definition";
import { type RenderInput, renderDashboard } from "../../src/dashboards/render";
import { contrastRatio, mixColors, readableColor } from "../../src/view/contrast";
import { CATALOGUES } from "../../src/view/messages";
import { PALETTES } from "../../src/view/palette";
import { BUILTIN_DOCUMENT, resolvePresentation, type ThemeRow } from "../../src/view/presentation";
import { readableInks, themeCss } from "../../src/view/style";

// Charts as a screen reader and a keyboard get them (docs/accessibility.md), their labels and axes
// (docs/accessibility.md), and the colors pages write text and focus rings with: drawn directly.
const definition = {
  variables: [],
  panels: [
    {
      id: "by_product",
      type: "bar",
      title: "Revenue by product",
      layout: { x: 0, y: 0, w: 6, h: 4 },
      schema_id: 1,
      sql: "SELECT 1",
      x_column: "product",
      y_columns: ["revenue"],
      column_formats: { revenue: { style: "number", decimals: 2 } },
    },
    {
      id: "share",
      type: "pie",
      title: "",
      layout: { x: 6, y: 0, w: 6, h: 4 },
      schema_id: 1,
      sql: "SELECT 1",
      label_column: "product",
      value_column: "revenue",
    },
  ],
} as unknown as Definition;

const rows = [
  { product: "Analytics", revenue: 9000 },
  { product: "Seats", revenue: 12345.5 },
  { product: "Storage", revenue: 4200 },
  { product: "Support", revenue: 800 },
];

function page(options: { locale?: string; live?: boolean; share?: boolean; theme?: ThemeRow; width?: number } = {}): string {
  const input: RenderInput = {
    definition,
    dashboardName: "Sales",
    context: NO_CUSTOMER,
    isDemo: false,
    results: new Map([
      ["by_product", { status: "ok", rows, truncated: false }],
      ["share", { status: "ok", rows, truncated: false }],
    ]),
    width: options.width,
    interaction: options.live ? { path: "/embed/x", query: {}, locked: [], clicks: true } : undefined,
    chartTables: options.share,
    view: resolvePresentation({ locale: options.locale ?? "en-US", theme: options.theme?.name }, [], options.theme ? [options.theme] : []),
  };
  return renderDashboard(input);
}

const svgs = (html: string) => html.match(/<svg [^>]*>[\s\S]*?<\/svg>/g) ?? [];
const decalTheme = (decals: boolean): ThemeRow => ({
  id: 1,
  name: "Patterns",
  isDefault: false,
  document: { ...BUILTIN_DOCUMENT, decals },
});

describe("a chart's name, description and table", () => {
  it("is role=img, named by its title (else its kind) and described in the view's language: series, category, points, range", () => {
    const [bar, pie] = svgs(page({ locale: "de-DE" }));
    expect(bar).toMatch(/^<svg [^>]*role="img"[^>]*aria-label="Revenue by product"/);
    expect(bar).toContain("<desc>Balkendiagramm von revenue nach product. Punkte: 4. Werte von 800,00 bis 12.345,50.</desc>");
    expect(pie).toMatch(/^<svg [^>]*role="img"[^>]*aria-label="Kreisdiagramm"/);
    const [en] = svgs(page());
    expect(en).toContain("<desc>Bar chart of revenue by product. Points: 4. Values from 800.00 to 12,345.50.</desc>");
  });

  it("has a Show as table control and the same rows as an HTML table on the live page and a share page; none in a capture", () => {
    for (const html of [page({ live: true, locale: "fr-FR" }), page({ share: true, locale: "fr-FR" })]) {
      const controls = html.match(/<label class="as-table"><input type="checkbox">([^<]+)<\/label>/g) ?? [];
      expect(controls).toHaveLength(2);
      expect(controls[0]).toContain(CATALOGUES.fr["chart.show_table"]);
      const table = html.slice(html.indexOf('<div class="chart-table">'));
      // The same rows, formatted as the panel formats them (fr-FR, 2 decimals).
      expect(table).toMatch(/<td>Seats<td>12\u202f345,50</);
      expect(table.match(/<tr>/g)?.length).toBeGreaterThanOrEqual(5);
      expect(html).toContain(".panel:has(.as-table :checked) svg.chart{display:none}");
      expect(html).toContain("@media print{.as-table{display:none}");
    }
    const capture = page();
    expect(capture).not.toContain("as-table");
    expect(capture).not.toContain("chart-table");
  });
});

describe("decals (a theme's `decals: true`)", () => {
  it("draws the series with patterns; without it, colors only (control)", () => {
    const patterned = svgs(page({ theme: decalTheme(true) }));
    expect(patterned.every((svg) => svg.includes("<pattern"))).toBe(true);
    expect(patterned[0]).toMatch(/fill="url\(#zr\d+-p\d+\)"/);
    expect(svgs(page({ theme: decalTheme(false) })).some((svg) => svg.includes("<pattern"))).toBe(false);
    expect(svgs(page()).some((svg) => svg.includes("<pattern"))).toBe(false);
  });
});

describe("axes and labels", () => {
  it("groups value axis numbers like tables from 4 digits (de-DE 9.000), compact from a million", () => {
    expect(axisNumber(9000, "de-DE")).toBe("9.000");
    expect(axisNumber(9000, "en-US")).toBe("9,000");
    expect(axisNumber(2_500_000, "de-DE")).toMatch(/^2,5\sMio\.$/);
    const de = cartesianChart(
      "bar",
      rows,
      "product",
      ["revenue"],
      { width: 600, height: 300 },
      { clock: { locale: "de-DE", timezone: "UTC" }, formats: {} },
    );
    expect(de).toMatch(/>10\.000<\/text>/);
    expect(de).not.toMatch(/>10000<\/text>/);
  });

  it("labels every one of up to 12 categories at 320 px (turned when they would not fit); with more, some are left out (control)", () => {
    const names = Array.from({ length: 12 }, (_, i) => `Category ${i + 1}`);
    const twelve = names.map((product, i) => ({ product, revenue: i + 1 }));
    const narrow = cartesianChart("bar", twelve, "product", ["revenue"], { width: 290, height: 240 });
    for (const name of names) expect(narrow).toContain(`>${name}</text>`);
    // Upright: twelve labels of 11 characters in 290 px.
    expect(narrow).toMatch(/transform="matrix\(0,-1,1,0,[^)]*\)"[^>]*>Category 1<\/text>/);
    for (const width of [290, 330, 690]) {
      const four = cartesianChart("bar", rows, "product", ["revenue"], { width, height: 240 });
      for (const { product } of rows) expect(four).toContain(`>${product}</text>`);
    }
    const thirty = Array.from({ length: 30 }, (_, i) => ({ product: `Category ${i + 1}`, revenue: i }));
    const crowded = cartesianChart("bar", thirty, "product", ["revenue"], { width: 290, height: 240 });
    expect(thirty.filter(({ product }) => crowded.includes(`>${product}</text>`)).length).toBeLessThan(30);
  });
});

describe("colors pages write with", () => {
  it("muted and accent-colored text reach 4.5:1 on every ground, the focus ring 3:1, in the built-in theme and an accepted 3:1 theme", () => {
    const dim = { ...PALETTES.dark, muted_text: "#6b7794" }; // 3.5:1 on the dark surface: accepted by the theme rules
    for (const colors of [PALETTES.light, PALETTES.dark, dim]) {
      const ink = readableInks(colors);
      const grounds = [colors.background, colors.surface, mixColors(colors.surface, colors.text, 0.06)];
      for (const ground of grounds) {
        expect(contrastRatio(ink.muted, ground)).toBeGreaterThanOrEqual(4.5);
        expect(contrastRatio(ink.link, ground)).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrastRatio(ink.focus, colors.surface)).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(ink.focus, colors.background)).toBeGreaterThanOrEqual(3);
    }
    // Control: the built-in muted text (#64748b, 4.4:1 on the page) was below 4.5 and is darkened; a color that reads is kept.
    expect(contrastRatio(PALETTES.light.muted_text, PALETTES.light.background)).toBeLessThan(4.5);
    expect(readableInks(PALETTES.light).muted).not.toBe(PALETTES.light.muted_text);
    expect(readableColor("#000000", ["#ffffff"], 4.5, "#333333")).toBe("#000000");
    expect(readableInks(PALETTES.light).focus).toBe(PALETTES.light.accent);
  });

  it("draws focus rings in the theme's accent, not a fixed amber", () => {
    expect(CLICK_STYLE).not.toContain("#f59e0b");
    expect(CLICK_STYLE).toContain("outline:3px solid var(--cd-focus)");
    const orange = { ...BUILTIN_DOCUMENT, colors: { ...PALETTES.light, accent: "#c2410c" } };
    expect(themeCss(orange)).toContain("--cd-focus:#c2410c");
  });
});
