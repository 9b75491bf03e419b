import { describe, expect, it } from "vitest";
import { reportPage, reportPanelHtml } from "../../src/report-builder/chart";
import type { ReportResult } from "../../src/report-builder/query";

const result: ReportResult = {
  columns: [
    { name: "day_month", display_name: "Day (month)", type: "STRING" },
    { name: "sum_amount", display_name: "Sum of Amount", type: "FLOAT" },
    { name: "count", display_name: "Count", type: "INTEGER" },
  ],
  rows: [
    { day_month: "2026-01", sum_amount: 1200.5, count: 3 },
    { day_month: "2026-02", sum_amount: 900, count: 2 },
  ],
  row_count: 2,
  truncated: false,
};

/** A result month (YYYY-MM) as an en-US page shows it, written by Intl (never hand-typed). */
function shownMonth(month: string): string {
  const [year, index] = month.split("-").map(Number);
  return new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", timeZone: "UTC" }).format(Date.UTC(year, index - 1, 1));
}

/** The text a reader sees in an SVG: its <text> elements. */
function svgTexts(html: string): string[] {
  return [...html.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
}

describe("results drawn as dashboard panels", () => {
  it("draws a bar chart of the named columns with the dashboards' renderer (inline SVG, categories on the axis, series named by display name)", () => {
    const html = reportPanelHtml(result, { type: "bar", x: "day_month", y: ["sum_amount", "count"] }, { title: "Revenue" });
    expect(html).toMatch(/^<section class="panel panel-bar"/);
    expect(html).toContain("<h2>Revenue</h2>");
    expect(html).toContain('<svg class="chart"');
    const texts = svgTexts(html);
    expect(texts).toContain(shownMonth("2026-01"));
    expect(texts).toContain(shownMonth("2026-02"));
    expect(texts).toContain("Sum of Amount");
    expect(texts).toContain("Count");
  });

  it("defaults x to the first text column and y to the numeric ones", () => {
    const texts = svgTexts(reportPanelHtml(result, { type: "line" }));
    expect(texts).toEqual(expect.arrayContaining([shownMonth("2026-01"), "Sum of Amount", "Count"]));
  });

  it("shows a table under display names, a KPI of the first row, and a pie of the first value", () => {
    const table = reportPanelHtml(result, { type: "table" });
    expect(table).toContain("<th>Day (month)</th>");
    expect(table).toContain('<th class="num">Sum of Amount</th>');
    expect(table).toContain("1,200.5");
    const kpi = reportPanelHtml(result, { type: "kpi", y: ["sum_amount"] });
    expect(kpi).toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?1,200.50</);
    const pie = reportPanelHtml(result, { type: "pie", x: "day_month", y: ["count"] });
    expect(svgTexts(pie)).toEqual(expect.arrayContaining([shownMonth("2026-01"), shownMonth("2026-02"), "60%", "40%"]));
  });

  it("says what is wrong when a chart names a column the result does not have (a report broken by a blueprint change)", () => {
    const html = reportPanelHtml(result, { type: "bar", x: "product", y: ["sum_amount"] });
    expect(html).toContain("This chart names columns the result does not have: product.");
    expect(html).not.toContain("<svg");
  });

  it("escapes names and values (they come from vendors and their users)", () => {
    const hostile: ReportResult = { ...result, rows: [{ day_month: "<img src=x onerror=alert(1)>", sum_amount: 1, count: 1 }] };
    const html = reportPanelHtml(hostile, { type: "table" }, { title: "<script>x</script>" });
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<script>x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("renders a saved report as one page: its chart, then its table, complete for a capture", () => {
    const page = reportPage({
      title: "Monthly revenue",
      customerName: "Acme Berlin",
      result,
      chart: { type: "bar", x: "day_month", y: ["sum_amount"] },
    });
    expect(page).toContain('<body data-render-complete="true">');
    expect(page).toContain("<h1>Monthly revenue</h1>");
    expect(page).toContain("<p>Acme Berlin</p>");
    expect(page.indexOf('class="panel panel-bar"')).toBeGreaterThan(0);
    expect(page.indexOf('class="panel panel-bar"')).toBeLessThan(page.indexOf('class="panel panel-table"'));
    expect(
      reportPage({ title: "T", customerName: "C", result, chart: { type: "table" } }).match(/class="panel panel-table"/g),
    ).toHaveLength(1);
  });
});
