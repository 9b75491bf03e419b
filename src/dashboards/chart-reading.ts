import type { Row } from "../data/query-runner";
import { type ColumnFormat, formatNumber, formatValue, type ViewClock } from "../view/format";
import type { MessageKey, Translator } from "../view/messages";
import { attributeText, type Html, html } from "../view/page-shell";
import { toNumber } from "./charts";

// A chart as a screen reader and a keyboard get it (docs/accessibility.md): its SVG is `role="img"`
// named by the panel's title and described in words (what it shows: the series, how many
// points, the range of the values), and a "Show as table" control swaps it for an HTML table
// of the same rows. The control is a checkbox in the panel's head; the swap is CSS (CHART_TABLE_STYLE):
// no script, so it works under every page's CSP, on the embed page and the share page alike.

/** What a chart shows, for its name and description. */
export interface ChartSubject {
  kind: "bar" | "line" | "area" | "pie";
  /** The panel's title (its accessible name), when it has one. */
  title: string;
  /** The category column's display name, and the column. */
  category: string;
  categoryColumn: string;
  /** The value columns: their display names and their columns. */
  series: { name: string; column: string }[];
  rows: Row[];
  clock: ViewClock;
  formats: Record<string, ColumnFormat>;
}

const KIND_WORDS: Record<ChartSubject["kind"], MessageKey> = {
  bar: "chart.bar",
  line: "chart.line",
  area: "chart.area",
  pie: "chart.pie",
};

/** The chart's description in the view's language: kind, series, category, points, range. */
export function chartDescription(subject: ChartSubject, t: Translator): string {
  const values = subject.rows.flatMap((row) => subject.series.map((s) => toNumber(row[s.column]))).filter((v) => v !== null);
  const format = (value: number) => formatValue(value, subject.clock, subject.formats[subject.series[0]?.column ?? ""]);
  const list = subject.series.map((s) => s.name).join(", ");
  return t("chart.describe", {
    kind: t(KIND_WORDS[subject.kind]),
    series: list,
    category: subject.category,
    count: formatNumber(subject.rows.length, subject.clock.locale),
    min: values.length > 0 ? format(Math.min(...values)) : "—",
    max: values.length > 0 ? format(Math.max(...values)) : "—",
  });
}

/** The chart's SVG (as ECharts drew it, `role="img"`) with its accessible name and its description (`<desc>`). */
export function namedChart(svg: string, subject: ChartSubject, t: Translator): string {
  const name = subject.title || t(KIND_WORDS[subject.kind]);
  // Both escaped as the page's template escapes (text in an attribute and in an element).
  return svg.replace(
    /^<svg ([^>]*)>/,
    (_, attributes: string) =>
      `<svg ${attributes} aria-label="${attributeText(name)}"><desc>${attributeText(chartDescription(subject, t))}</desc>`,
  );
}

/** The "Show as table" control of a chart panel's head (a checkbox: its state is the swap). */
export function tableToggle(t: Translator): Html {
  return html`<label class="as-table"><input type="checkbox">${t("chart.show_table")}</label>`;
}

/**
 * The chart's rows as a table, shown in its place while the control is checked: `headers` are
 * the category's and the series' names, `rows` their cells as the panel formats them, `note`
 * what is left out. It scrolls inside its panel, so it is a tab stop. Written with the end
 * tags the HTML parser implies left out and the series' cells aligned by CSS (the category
 * comes first): a page carries one of these for each chart, and unseen until asked for.
 */
export function chartTable(headers: string[], rows: string[][], note: Html | ""): Html {
  const head = headers.map((header) => html`<th>${header}`);
  const body = rows.map((row) => html`<tr>${row.map((value) => html`<td>${value}`)}`);
  return html`<div class="chart-table"><div class="table-wrap" tabindex="0"><table><thead><tr>${head}<tbody>${body}</table></div>${note}</div>`;
}

/**
 * The swap: a checked control hides the chart and shows its table; printed pages show the chart
 * and no control. Placed after PANEL_STYLE by pages that draw chart panels with their control.
 */
export const CHART_TABLE_STYLE = `
.as-table{flex:none;display:inline-flex;align-items:center;gap:4px;font-size:11px;font-weight:600;color:var(--cd-link);border:1px solid color-mix(in srgb,var(--cd-accent) 35%,var(--cd-surface));border-radius:4px;padding:0 6px;cursor:pointer;min-height:24px}
.as-table input{margin:0;accent-color:var(--cd-accent);width:13px;height:13px}
.as-table:has(:focus-visible){outline:3px solid var(--cd-focus);outline-offset:2px}
.as-table input:focus-visible{outline:none}
.chart-table{display:none;flex:1;min-height:0;min-width:0;flex-direction:column}
.chart-table td+td,.chart-table th+th{text-align:end}
[dir=rtl] .chart-table td+td{direction:ltr;text-align:left}
.panel:has(.as-table :checked) svg.chart{display:none}
.panel:has(.as-table :checked) .chart-table{display:flex}
@media print{.as-table{display:none}.panel .chart-table{display:none !important}.panel svg.chart{display:block !important}}
`;
