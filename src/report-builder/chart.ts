import { BUILTIN_PRESENTATION, type Presentation } from "../view/presentation";
import type { PanelResult, Row } from "../data/query-runner";
import type { Definition, PanelDefinition } from "../dashboards/definition";
import { panelMarkup, renderDashboard } from "../dashboards/render";
import { NO_CUSTOMER } from "../data/placeholders";
import type { Chart, ReportResult, ResultColumn } from "./query";
import type { Paper } from "../view/paper";

/**
 * Query results drawn by the dashboards' own server-side renderer (the same panels, ECharts
 * SVG and tables): the report builder shows a result with `reportPanelHtml`, delivery of a
 * saved report renders `reportPage` (its chart and its table: one page, or on paper as many as its rows take).
 */

export interface ReportPanelOptions {
  /** The panel's title (e.g. the saved report's name). */
  title?: string;
  /** The page width the chart is drawn for (px, default 1280). */
  width?: number;
  /** Height in grid rows of 64 px (default 6). */
  rows?: number;
  isDemo?: boolean;
  /** The view whose theme draws the chart (series, axes, font); default the built-in one. */
  view?: Presentation;
}

const NUMERIC = new Set<ResultColumn["type"]>(["INTEGER", "FLOAT"]);

/** Each result column's label in the drawing: its display name, made unique. */
function labels(columns: ResultColumn[]): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const column of columns) {
    let label = column.display_name || column.name;
    for (let n = 2; taken.has(label); n++) label = `${column.display_name || column.name} (${n})`;
    taken.add(label);
    out.set(column.name, label);
  }
  return out;
}

/** The chart's columns, with the defaults: x the first non-numeric column, y the numeric ones. */
export function chartColumns(
  result: Pick<ReportResult, "columns">,
  chart: Chart,
): { x: string | undefined; y: string[]; missing: string[] } {
  const names = result.columns.map((c) => c.name);
  const x = chart.x ?? result.columns.find((c) => !NUMERIC.has(c.type))?.name ?? names[0];
  const y = chart.y && chart.y.length > 0 ? chart.y : result.columns.filter((c) => NUMERIC.has(c.type) && c.name !== x).map((c) => c.name);
  const missing = [...(chart.x ? [chart.x] : []), ...(chart.y ?? [])].filter((name) => !names.includes(name));
  return { x, y, missing };
}

/** The panel definition and its data for one chart of a result. */
function chartPanel(
  result: ReportResult,
  chart: Chart,
  options: ReportPanelOptions & { id: string; y?: number },
): { panel: PanelDefinition; data: PanelResult } {
  const label = labels(result.columns);
  const layout = { x: 0, y: options.y ?? 0, w: 12, h: options.rows ?? 6 };
  const base = { id: options.id, title: options.title ?? "", layout, schema_id: 1, sql: "" };
  const labelOf = (name: string | undefined) => (name === undefined ? "" : (label.get(name) ?? name));
  const relabel = (row: Row) => Object.fromEntries(result.columns.map((c) => [labelOf(c.name), row[c.name]]));
  const { x, y, missing } = chartColumns(result, chart);
  const ok = (rows: Row[]): PanelResult => ({ status: "ok", rows, truncated: result.truncated });
  if (missing.length > 0) {
    return {
      panel: { ...base, type: chart.type } as PanelDefinition,
      data: { status: "failed", message: `This chart names columns the result does not have: ${missing.join(", ")}.` },
    };
  }
  if (chart.type !== "table" && chart.type !== "kpi" && (x === undefined || y.length === 0)) {
    return {
      panel: { ...base, type: chart.type } as PanelDefinition,
      data: { status: "failed", message: "This chart needs a category column and at least one numeric column." },
    };
  }
  switch (chart.type) {
    case "table":
      return { panel: { ...base, type: "table" } as PanelDefinition, data: ok(result.rows.map(relabel)) };
    case "kpi": {
      const column = y[0] ?? result.columns[0]?.name;
      return {
        panel: { ...base, type: "kpi" } as PanelDefinition,
        data: ok(result.rows.slice(0, 1).map((row) => ({ value: row[column] }))),
      };
    }
    case "pie":
      return {
        panel: { ...base, type: "pie", label_column: labelOf(x), value_column: labelOf(y[0]) } as PanelDefinition,
        data: ok(result.rows.map(relabel)),
      };
    default:
      return {
        panel: { ...base, type: chart.type, x_column: labelOf(x), y_columns: y.map(labelOf) } as PanelDefinition,
        data: ok(result.rows.map(relabel)),
      };
  }
}

/**
 * A result + its chart as the panel markup of dashboard pages (`<section class="panel …">`;
 * the hosting page carries PANEL_STYLE and a `.grid`). A chart naming a column the result
 * lacks draws a message instead of failing.
 */
export function reportPanelHtml(result: ReportResult, chart: Chart, options: ReportPanelOptions = {}): string {
  const { panel, data } = chartPanel(result, chart, { ...options, id: "report" });
  return panelMarkup(panel, data, { width: options.width, context: NO_CUSTOMER, isDemo: options.isDemo, view: options.view });
}

/**
 * A saved report as a whole page (what a capture or an e-mail of it shows): its chart, then
 * its table — a table chart only once — under the report's name and the customer's name.
 */
export function reportPage(input: {
  title: string;
  customerName: string;
  result: ReportResult;
  chart: Chart;
  width?: number;
  isDemo?: boolean;
  fitToWindow?: boolean;
  /** Theme, locale and time zone of the view (the built-in presentation when absent). */
  view?: Presentation;
  /** A PDF on paper: laid out for its pages as a dashboard is (all the table's rows, every page footed). */
  paper?: Paper;
}): string {
  const tableRows = Math.min(10, Math.max(3, Math.ceil(input.result.rows.length / 2) + 1));
  const panels =
    input.chart.type === "table"
      ? [chartPanel(input.result, input.chart, { id: "table", rows: tableRows })]
      : [
          chartPanel(input.result, input.chart, { id: "chart" }),
          chartPanel(input.result, { type: "table" }, { id: "table", y: 6, rows: tableRows }),
        ];
  const definition = { title: input.title, variables: [], panels: panels.map((p) => p.panel) } as unknown as Definition;
  return renderDashboard({
    definition,
    dashboardName: input.title,
    context: { ...NO_CUSTOMER, customer: { ...NO_CUSTOMER.customer, name: input.customerName } },
    isDemo: input.isDemo ?? false,
    results: new Map(panels.map((p) => [p.panel.id, p.data])),
    width: input.width,
    // A share link opened on a phone asks again with its window's width, as a dashboard's does.
    fitToWindow: input.fitToWindow,
    view: input.view ?? BUILTIN_PRESENTATION,
    ...(input.paper ? { capture: { paper: input.paper } } : {}),
  });
}
