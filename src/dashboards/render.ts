import { frameScriptTag } from "../http/pages";
import { escapeHtml } from "../lib/html";
import { cartesianChart, compactNumber, pieChart } from "./charts";
import type { PanelResult, Row } from "./data";
import type { Definition, PanelDefinition } from "./definition";
import { interpolateText, type PlaceholderContext } from "./sql";

/** Grid geometry: 12 columns on a 1200 px canvas, rows of 64 px with 16 px gaps. */
const COLUMN_PX = 100;
const ROW_PX = 64;
const GAP_PX = 16;
const TABLE_ROWS = 200;

export interface RenderInput {
  definition: Definition;
  dashboardName: string;
  context: PlaceholderContext;
  isDemo: boolean;
  results: Map<string, PanelResult>;
}

/**
 * One self-contained HTML document: inline CSS, charts as inline SVG, no external
 * request and no script but the frame script (height and token messages for embed.js,
 * allowed by its CSP hash); `data-render-complete="true"` on <body> since everything is
 * done on the server. The embed page and the screenshots use this same output.
 */
export function renderDashboard(input: RenderInput): string {
  const title = input.definition.title ? interpolateText(input.definition.title, input.context) : input.dashboardName;
  const panels = input.definition.panels.map((panel) => renderPanel(panel, input)).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body data-render-complete="true"><main class="dashboard">
<header class="dashboard-header"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(input.context.customer.name)}</p></header>
<div class="grid">
${panels}
</div></main>${frameScriptTag}</body></html>`;
}

function panelSize(panel: PanelDefinition): { width: number; height: number } {
  const { w, h } = panel.layout;
  return { width: w * COLUMN_PX - 32, height: Math.max(80, h * ROW_PX + (h - 1) * GAP_PX - 64) };
}

function renderPanel(panel: PanelDefinition, input: RenderInput): string {
  const { x, y, w, h } = panel.layout;
  const style = `grid-column:${x + 1} / span ${w};grid-row:${y + 1} / span ${h}`;
  const title = panel.title ? `<h2>${escapeHtml(interpolateText(panel.title, input.context))}</h2>` : "";
  const isData = panel.type !== "text";
  const watermark = isData && input.isDemo ? '<span class="demo-mark" aria-hidden="true">DEMO</span>' : "";
  return `<section class="panel panel-${panel.type}" style="${style}" data-panel-id="${escapeHtml(panel.id)}">${title}<div class="body">${panelBody(panel, input)}</div>${watermark}</section>`;
}

function message(text: string, kind: string): string {
  return `<div class="message message-${kind}">${escapeHtml(text)}</div>`;
}

function panelBody(panel: PanelDefinition, input: RenderInput): string {
  if (panel.type === "text") {
    const text = interpolateText(panel.text ?? "", input.context);
    return text
      .split(/\n{2,}/)
      .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
      .join("");
  }
  const result = input.results.get(panel.id) ?? { status: "failed" as const };
  if (result.status === "no_mapping") return message(`No data source is set up for this customer (schema ${result.schemaId}).`, "no-mapping");
  if (result.status === "failed") return message(result.message ?? "This panel's data could not be loaded.", "failed");
  if (result.rows.length === 0) return message("No data for this selection.", "empty");

  const rows = result.rows;
  switch (panel.type) {
    case "kpi":
      return kpi(panel, rows[0], input.context);
    case "table":
      return table(rows, result.truncated);
    case "pie":
      return pieChart(rows, panel.label_column as string, panel.value_column as string, panelSize(panel)) + cutNote(result);
    default:
      return cartesianChart(panel.type as "bar" | "line" | "area", rows, panel.x_column as string, panel.y_columns as string[], panelSize(panel)) + cutNote(result);
  }
}

/** A chart over the row limit (QUERY_ROW_LIMIT) says that it shows only the first rows. */
function cutNote(result: { rows: Row[]; truncated: boolean }): string {
  return result.truncated ? `<p class="note">Cut at the first ${result.rows.length.toLocaleString("en-US")} rows.</p>` : "";
}

function kpi(panel: PanelDefinition, row: Row, context: PlaceholderContext): string {
  const raw = "value" in row ? row.value : Object.values(row)[0];
  const value = typeof raw === "number" ? raw : Number(raw);
  const format = panel.format ?? {};
  let text: string;
  if (raw === null || raw === undefined || !Number.isFinite(value)) {
    text = raw === null || raw === undefined ? "—" : String(raw);
  } else {
    const currency = format.currency ? interpolateText(format.currency, context).trim().toUpperCase() : "";
    const decimals = format.decimals ?? (Number.isInteger(value) ? 0 : 2);
    const options: Intl.NumberFormatOptions = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
    if (format.style === "percent") options.style = "percent";
    else if ((format.style === "currency" || currency) && /^[A-Z]{3}$/.test(currency)) Object.assign(options, { style: "currency", currency });
    text = new Intl.NumberFormat("en-US", options).format(value);
  }
  const prefix = format.prefix ? escapeHtml(format.prefix) : "";
  const suffix = format.suffix ? escapeHtml(format.suffix) : "";
  return `<div class="kpi-value">${prefix}${escapeHtml(text)}${suffix}</div>`;
}

function isNumeric(value: unknown): boolean {
  return typeof value === "number";
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return escapeHtml(Math.abs(value) >= 1e15 ? compactNumber(value) : value.toLocaleString("en-US", { maximumFractionDigits: 2 }));
  return escapeHtml(String(value));
}

function table(rows: Row[], truncated: boolean): string {
  const columns = Object.keys(rows[0]);
  const numeric = columns.map((column) => rows.some((row) => isNumeric(row[column])));
  const head = columns.map((column, i) => `<th${numeric[i] ? ' class="num"' : ""}>${escapeHtml(column)}</th>`).join("");
  const body = rows
    .slice(0, TABLE_ROWS)
    .map((row) => `<tr>${columns.map((column, i) => `<td${numeric[i] ? ' class="num"' : ""}>${cell(row[column])}</td>`).join("")}</tr>`)
    .join("");
  const more = rows.length > TABLE_ROWS || truncated ? `<p class="note">Showing the first ${TABLE_ROWS} rows.</p>` : "";
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}

const STYLE = `
*{box-sizing:border-box}
html,body{margin:0;background:#f4f6fb;color:#0f172a;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.dashboard{max-width:1232px;margin:0 auto;padding:24px 16px 32px}
.dashboard-header{display:flex;align-items:baseline;justify-content:space-between;gap:16px;margin:0 0 16px}
.dashboard-header h1{font-size:22px;font-weight:650;margin:0;letter-spacing:-.01em}
.dashboard-header p{margin:0;color:#64748b;font-size:14px}
.grid{display:grid;grid-template-columns:repeat(12,minmax(0,1fr));grid-auto-rows:${ROW_PX}px;gap:${GAP_PX}px}
.panel{position:relative;display:flex;flex-direction:column;min-width:0;background:#fff;border:1px solid #e5e9f2;border-radius:12px;padding:14px 16px;box-shadow:0 1px 2px rgba(15,23,42,.04);overflow:hidden;break-inside:avoid;page-break-inside:avoid}
.panel h2{margin:0 0 8px;font-size:13px;font-weight:600;color:#475569;text-transform:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.body{flex:1;min-height:0;display:flex;flex-direction:column}
.chart{display:block;flex:1;min-height:0;width:100%;height:100%}
.kpi-value{margin-top:auto;margin-bottom:auto;font-size:34px;font-weight:700;letter-spacing:-.02em;color:#0f172a;font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.panel-text .body{color:#334155;font-size:15px}.panel-text p{margin:0 0 8px}
.table-wrap{flex:1;min-height:0;overflow:auto}
table{width:100%;border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:#f8fafc;color:#475569;font-weight:600;text-align:left;padding:6px 10px;border-bottom:1px solid #e2e8f0}
td{padding:6px 10px;border-bottom:1px solid #f1f5f9;white-space:nowrap}
.num{text-align:right}
tbody tr:nth-child(even) td{background:#fcfdfe}
.note{margin:6px 0 0;color:#94a3b8;font-size:12px}
.message{margin:auto;max-width:90%;text-align:center;color:#64748b;font-size:13px;padding:12px;border:1px dashed #cbd5e1;border-radius:8px;background:#f8fafc}
.message-failed{color:#b45309;border-color:#fcd34d;background:#fffbeb}
.demo-mark{position:absolute;right:10px;top:10px;font-size:10px;font-weight:700;letter-spacing:.12em;color:#94a3b8;border:1px solid #cbd5e1;border-radius:4px;padding:1px 6px;background:#fff}
@media print{html,body{background:#fff}.panel{box-shadow:none}}
`;
