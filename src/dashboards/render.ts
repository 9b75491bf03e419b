import { frameScriptTag } from "../http/pages";
import { BUILTIN_PRESENTATION, htmlTag, type Presentation } from "../view/presentation";
import { BUILTIN_THEME_CSS, type ChartLook, chartLook, logoImg, presentationCss } from "../view/style";
import { escapeHtml } from "../lib/html";
import { type ColumnFormat, formatNumber, formatValue, type ViewClock } from "../view/format";
import { datePattern, showDate } from "../view/date-field";
import { directionOf, type Translator, translator } from "../view/messages";
import { BUILTIN_LOOK, cartesianChart, compactNumber, pieChart } from "./charts";
import { CLICK_STYLE, clickData } from "./clicks";
import type { PanelResult, Row } from "../data/query-runner";
import type { Definition, PanelDefinition, VariableDefinition } from "./definition";
import {
  chartSize,
  DEFAULT_PAGE_WIDTH,
  GAP_PX,
  geometry,
  MAX_CONTENT_PX,
  PANEL_PAD_X,
  PANEL_PAD_Y,
  panelHeight,
  panelWidth,
  readingOrder,
  ROW_PX,
  STACK_BELOW_PX,
  WIDEST_LAYOUT_FROM_PX,
  type Geometry,
} from "./layout";
import { interpolateText, type PlaceholderContext } from "../data/placeholders";
import { localizeDefinition } from "./translations";

/** A table panel shows at most this many rows (its CSV has them all). */
const TABLE_ROWS = 200;

/** What only the interactive embed page has: filter controls and CSV links. */
export interface Interaction {
  /** `/embed/<id>`: where the filter form submits and the CSV links start. */
  path: string;
  /** The page's own query (credential, environment, width, var_…), kept by links and the form. */
  query: Record<string, string>;
  /** Variables a signed token locks: no control for them. */
  locked: string[];
  /**
   * The live embed page's clicks (panels' `on_click`, docs/embedding.md "Clicks"): its marks
   * answer clicks and the page tells the host its variables (the click script and its data,
   * allowed by the script's hash: `clickScriptHash`). Absent: a page nobody clicks on.
   */
  clicks?: boolean;
}

export interface RenderInput {
  definition: Definition;
  dashboardName: string;
  context: PlaceholderContext;
  isDemo: boolean;
  results: Map<string, PanelResult>;
  /** The page width the charts are drawn for (default 1280). */
  width?: number;
  /**
   * Drawn at the default width for want of one: opened on its own, the page asks again for
   * its window's width, unless that draws the same page (`data-fit-window` is the width from
   * which every width does).
   */
  fitToWindow?: boolean;
  interaction?: Interaction;
  /** Theme, locale and time zone of the view (the built-in presentation when absent). */
  view?: Presentation;
  /** The view's locale (BCP 47; default en-US): our words, numbers and dates. */
  locale?: string;
  /** The view's IANA time zone (default UTC): date-times are shown in it. */
  timezone?: string;
  /** Display names of result columns (table headers, chart series); default the names themselves. */
  columnNames?: Record<string, string>;
}

/** How a page is shown: its width, and the interactive parts of the embed page. */
export type PageOptions = Pick<RenderInput, "width" | "fitToWindow" | "interaction" | "locale" | "timezone">;

/**
 * One self-contained HTML document: inline CSS, charts as inline SVG, no external
 * request and no script but the frame script (height and token messages for embed.js,
 * allowed by its CSP hash); `data-render-complete="true"` on <body> since everything is
 * done on the server. The embed page and the screenshots use this same output.
 */
/**
 * The view's presentation with the render's own `locale`/`timezone` laid over it (a caller
 * that knows them without a resolved view, e.g. a preview).
 */
function viewOf(input: RenderInput): Presentation {
  const view = input.view ?? BUILTIN_PRESENTATION;
  const locale = input.locale ?? view.locale;
  return { ...view, locale, dir: directionOf(locale), timezone: input.timezone ?? view.timezone };
}

export function renderDashboard(given: RenderInput): string {
  const locale = viewOf(given).locale;
  // The vendor's words in the view's language (its `translations`), then drawn as always.
  const localized = localizeDefinition(given.definition, locale);
  const input: RenderInput = {
    ...given,
    definition: localized.definition,
    columnNames: { ...localized.columnNames, ...given.columnNames },
  };
  const g = geometry(input.width ?? DEFAULT_PAGE_WIDTH);
  const title = input.definition.title ? interpolateText(input.definition.title, input.context) : input.dashboardName;
  const panels = readingOrder(input.definition.panels)
    .map((panel) => renderPanel(panel, input, g))
    .join("\n");
  const controls = input.interaction
    ? renderControls(input.definition.variables, input.context, input.interaction, locale, localized.optionLabels)
    : "";
  const view = viewOf(input);
  const clicks = input.interaction?.clicks ? clickData(input.definition, input.results, input.context, input.interaction) : "";
  const logo = logoImg(view);
  const heading = logo ? `<div class="brand">${logo}<h1>${escapeHtml(title)}</h1></div>` : `<h1>${escapeHtml(title)}</h1>`;
  // A page nobody interacts with (a capture, a share link) is "still": a table there cannot be
  // scrolled sideways, so its cells wrap and every column shows.
  return `<!doctype html>
${htmlTag(view)}<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${PANEL_STYLE}${clicks ? CLICK_STYLE : ""}${presentationCss(view)}</style></head>
<body data-render-complete="true"><main class="dashboard${g.stacked ? " stacked" : ""}${input.interaction ? "" : " still"}" style="padding-left:${g.padX}px;padding-right:${g.padX}px" data-width="${g.width}"${input.fitToWindow ? ` data-fit-window="${WIDEST_LAYOUT_FROM_PX}"` : ""}>
<header class="dashboard-header">${heading}<p>${escapeHtml(input.context.customer.name)}</p></header>
${controls}<div class="grid">
${panels}
</div></main>${clicks}${frameScriptTag}</body></html>`;
}

/**
 * One panel's markup exactly as a dashboard page draws it (`<section class="panel …">`, to
 * be placed in a `.grid` of a page that carries PANEL_STYLE): the report builder and the
 * delivery of saved reports draw query results with it.
 */
export function panelMarkup(
  panel: PanelDefinition,
  result: PanelResult,
  options: { width?: number; context: PlaceholderContext; isDemo?: boolean; locale?: string; timezone?: string; view?: Presentation },
): string {
  const input: RenderInput = {
    view: options.view,
    definition: { panels: [panel], variables: [] },
    dashboardName: "",
    context: options.context,
    isDemo: options.isDemo ?? false,
    results: new Map([[panel.id, result]]),
    locale: options.locale,
    timezone: options.timezone,
  };
  return renderPanel(panel, input, geometry(options.width ?? DEFAULT_PAGE_WIDTH));
}

/** The page's query without `var_` values of locked variables (they would change nothing). */
function keptQuery(interaction: Interaction): Record<string, string> {
  const locked = new Set(interaction.locked.map((name) => `var_${name}`));
  return Object.fromEntries(Object.entries(interaction.query).filter(([name]) => !locked.has(name)));
}

function queryString(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/**
 * A GET form over the declared controls (`var_<name>` fields): works without script. The
 * page's other parameters (credential, environment, width, other variables) ride along
 * as hidden fields; locked variables get no field at all.
 */
function renderControls(
  variables: VariableDefinition[],
  context: PlaceholderContext,
  interaction: Interaction,
  locale: string,
  optionLabels: Map<string, Map<string, string>>,
): string {
  const t = translator(locale);
  const controlled = variables.filter(
    (v): v is VariableDefinition & { control: NonNullable<VariableDefinition["control"]> } =>
      v.control !== undefined && !interaction.locked.includes(v.name),
  );
  if (controlled.length === 0) return "";
  const names = new Set(controlled.map((v) => `var_${v.name}`));
  const hidden = Object.entries(keptQuery(interaction))
    .filter(([name]) => !names.has(name))
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  const fields = controlled
    .map((variable) => {
      const control = variable.control;
      const name = `var_${variable.name}`;
      const raw = context.variables[variable.name];
      const value = raw === undefined || raw === null ? "" : typeof raw === "object" ? JSON.stringify(raw) : String(raw);
      const label = escapeHtml(control.label ?? variable.label ?? variable.name);
      let input: string;
      if (control.type === "select") {
        const options = control.options ?? [];
        const all = options.includes(value) || value === "" ? options : [value, ...options];
        const labels = optionLabels.get(variable.name);
        input = `<select name="${name}" id="${name}">${all
          .map(
            (option) =>
              `<option value="${escapeHtml(option)}"${option === value ? " selected" : ""}>${escapeHtml(labels?.get(option) ?? option)}</option>`,
          )
          .join("")}</select>`;
      } else if (control.type === "date") {
        // Shown in the locale's format (a browser's own date input shows the browser's), the
        // ISO date in the hidden field the form submits: the frame script keeps the two in step.
        const pattern = escapeHtml(datePattern(locale));
        input = `<input type="text" id="${name}" value="${escapeHtml(showDate(value, locale))}" data-date-of="${name}" placeholder="${pattern}" title="${pattern}" inputmode="numeric" autocomplete="off" class="date"><input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
      } else {
        input = `<input type="text" name="${name}" id="${name}" value="${escapeHtml(value)}">`;
      }
      return `<label class="control" for="${name}"><span>${label}</span>${input}</label>`;
    })
    .join("");
  return `<form class="controls" method="get" action="${escapeHtml(interaction.path)}">${hidden}${fields}<button type="submit">${escapeHtml(t("filter.apply"))}</button></form>\n`;
}

/** What a panel is drawn in: the view's clock and our words in its language. */
interface Words {
  clock: ViewClock;
  t: Translator;
  names: Record<string, string>;
}

function wordsOf(input: RenderInput): Words {
  const { locale, timezone } = viewOf(input);
  const clock = { locale, timezone };
  return { clock, t: translator(clock.locale), names: input.columnNames ?? {} };
}

function renderPanel(panel: PanelDefinition, input: RenderInput, g: Geometry): string {
  const words = wordsOf(input);
  const { x, y, w, h } = panel.layout;
  const place = g.stacked ? "grid-column:1 / -1" : `grid-column:${x + 1} / span ${w};grid-row:${y + 1} / span ${h}`;
  const style = `${place};--panel-h:${panelHeight(panel)}px`;
  const isData = panel.type !== "text";
  const title = panel.title ? `<h2>${escapeHtml(interpolateText(panel.title, input.context))}</h2>` : "";
  const watermark = isData && input.isDemo ? '<span class="demo-mark" aria-hidden="true">DEMO</span>' : "";
  const csv = isData && input.interaction ? csvLink(panel, input.interaction, words.t) : "";
  const head = title || watermark || csv ? `<div class="panel-head">${title}${watermark}${csv}</div>` : "";
  // Stacked panels have no grid row to fill: a chart's body gets the height it was drawn for.
  const isChart = panel.type === "bar" || panel.type === "line" || panel.type === "area" || panel.type === "pie";
  const body = g.stacked && isChart ? ` style="height:${chartSize(g, panel).height}px;flex:none"` : "";
  const click = isData && clickable(panel, input) ? ` data-click="${panel.on_click?.action}"` : "";
  return `<section class="panel panel-${panel.type}" style="${style}" data-panel-id="${escapeHtml(panel.id)}"${click}>${head}<div class="body"${body}>${panelBody(panel, input, g, words)}</div></section>`;
}

/** Each data panel links to its rows as CSV, with the page's credential and variables. */
function csvLink(panel: PanelDefinition, interaction: Interaction, t: Translator): string {
  const { width: _width, ...query } = keptQuery(interaction);
  const href = `${interaction.path}/panels/${encodeURIComponent(panel.id)}.csv?${queryString(query)}`;
  return `<a class="csv" data-embed-link href="${escapeHtml(href)}" download>${escapeHtml(t("panel.csv"))}</a>`;
}

/** Whether the page's marks of `panel` answer clicks (the live embed page, a panel with on_click). */
function clickable(panel: PanelDefinition, input: RenderInput): boolean {
  return panel.on_click !== undefined && input.interaction?.clicks === true;
}

function message(text: string, kind: string): string {
  return `<div class="message message-${kind}">${escapeHtml(text)}</div>`;
}

function panelBody(panel: PanelDefinition, input: RenderInput, g: Geometry, words: Words): string {
  const { clock, t, names } = words;
  if (panel.type === "text") {
    const text = interpolateText(panel.text, input.context);
    return text
      .split(/\n{2,}/)
      .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
      .join("");
  }
  const result = input.results.get(panel.id) ?? { status: "failed" as const };
  if (result.status === "no_mapping") return message(t("panel.no_mapping", { schema: result.schemaId }), "no-mapping");
  if (result.status === "failed") return message(result.message ?? t("panel.failed"), "failed");
  if (result.rows.length === 0) return message(t("panel.empty"), "empty");
  const formats = columnFormats(panel, input.context);

  const rows = result.rows;
  switch (panel.type) {
    case "kpi":
      return kpi(panel, rows[0], input.context, panelWidth(g, panel) - 2 * PANEL_PAD_X - 2, clock);
    case "table":
      return table(rows, result.truncated, { clock, t, formats, names });
    case "pie":
      return (
        pieChart(rows, panel.label_column, panel.value_column, chartSize(g, panel), { clock, formats, names }, look(input)) +
        cutNote(result, words)
      );
    default:
      return (
        cartesianChart(
          panel.type,
          rows,
          panel.x_column,
          panel.y_columns,
          chartSize(g, panel),
          { clock, formats, names },
          look(input),
          clickable(panel, input),
        ) + cutNote(result, words)
      );
  }
}

/** A panel's `column_formats`, a currency placeholder resolved for the viewing customer. */
function columnFormats(panel: PanelDefinition, context: PlaceholderContext): Record<string, ColumnFormat> {
  const formats: Record<string, ColumnFormat> = {};
  for (const [column, format] of Object.entries(panel.column_formats ?? {})) {
    const currency = format.currency ? interpolateText(format.currency, context).trim().toUpperCase() : undefined;
    formats[column] = { ...format, currency };
  }
  return formats;
}

/** The chart colors and font of the view's theme. */
function look(input: RenderInput): ChartLook {
  return chartLook(input.view ?? BUILTIN_PRESENTATION, BUILTIN_LOOK);
}

/** A chart over the row limit (QUERY_ROW_LIMIT) says that it shows only the first rows. */
function cutNote(result: { rows: Row[]; truncated: boolean }, words: Words): string {
  return result.truncated
    ? `<p class="note">${escapeHtml(words.t("panel.cut", { count: formatNumber(result.rows.length, words.clock.locale) }))}</p>`
    : "";
}

/** KPI values shrink to fit their panel (34 px down to 16 px) and wrap as a last resort. */
function kpi(panel: PanelDefinition, row: Row, context: PlaceholderContext, innerWidth: number, clock: ViewClock): string {
  const raw = "value" in row ? row.value : Object.values(row)[0];
  const value = typeof raw === "number" ? raw : Number(raw);
  const format = panel.format ?? {};
  let text: string;
  if (raw === null || raw === undefined || !Number.isFinite(value)) {
    text = raw === null || raw === undefined ? "—" : String(raw);
  } else {
    const currency = format.currency ? interpolateText(format.currency, context).trim().toUpperCase() : "";
    const decimals = format.decimals ?? (Number.isInteger(value) ? 0 : 2);
    const style =
      format.style === "percent"
        ? "percent"
        : (format.style === "currency" || currency) && /^[A-Z]{3}$/.test(currency)
          ? "currency"
          : "number";
    text = formatNumber(value, clock.locale, { style, currency, decimals });
  }
  const prefix = format.prefix ? escapeHtml(format.prefix) : "";
  const suffix = format.suffix ? escapeHtml(format.suffix) : "";
  const characters = (format.prefix ?? "").length + text.length + (format.suffix ?? "").length;
  const size = Math.max(16, Math.min(34, Math.floor(innerWidth / (Math.max(1, characters) * 0.64))));
  // A number reads left to right on a right-to-left page too.
  return `<div class="kpi-value" style="font-size:${size}px"><bdi dir="ltr">${prefix}${escapeHtml(text)}${suffix}</bdi></div>`;
}

function isNumeric(value: unknown): boolean {
  return typeof value === "number";
}

function cell(value: unknown, clock: ViewClock, format: ColumnFormat | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" && format === undefined && Math.abs(value) >= 1e15) return escapeHtml(compactNumber(value, clock.locale));
  return escapeHtml(formatValue(value, clock, format));
}

function table(
  rows: Row[],
  truncated: boolean,
  view: { clock: ViewClock; t: Translator; formats: Record<string, ColumnFormat>; names: Record<string, string> },
): string {
  const columns = Object.keys(rows[0]);
  const numeric = columns.map((column) => rows.some((row) => isNumeric(row[column])));
  const head = columns
    .map((column, i) => `<th${numeric[i] ? ' class="num"' : ""}>${escapeHtml(view.names[column] ?? column)}</th>`)
    .join("");
  const body = rows
    .slice(0, TABLE_ROWS)
    .map(
      (row) =>
        `<tr>${columns.map((column, i) => `<td${numeric[i] ? ' class="num"' : ""}>${cell(row[column], view.clock, view.formats[column])}</td>`).join("")}</tr>`,
    )
    .join("");
  const more =
    rows.length > TABLE_ROWS || truncated
      ? `<p class="note">${escapeHtml(view.t("panel.table_first", { count: formatNumber(TABLE_ROWS, view.clock.locale) }))}</p>`
      : "";
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}

/** The CSS of dashboard pages (grid, panels, charts, tables), for pages that host `panelMarkup`. */
export const PANEL_STYLE = `${BUILTIN_THEME_CSS}
*{box-sizing:border-box}
.brand{display:flex;align-items:center;gap:10px;min-width:0}
html,body{margin:0;background:var(--cd-bg);color:var(--cd-text);font:14px/1.45 var(--cd-font)}
.dashboard{max-width:${MAX_CONTENT_PX + 32}px;margin:0 auto;padding:24px 16px 32px}
.dashboard-header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 16px;margin:0 0 16px}
.dashboard-header h1{font-size:22px;font-weight:650;margin:0;letter-spacing:-.01em;overflow-wrap:anywhere;min-width:0}
.dashboard-header p{margin:0;color:var(--cd-muted);font-size:14px;overflow-wrap:anywhere}
.controls{display:flex;flex-wrap:wrap;align-items:flex-end;gap:8px 12px;margin:0 0 16px;padding:10px 12px;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius)}
.control{display:flex;flex-direction:column;gap:2px;font-size:12px;color:var(--cd-muted);min-width:0;max-width:100%}
.control input,.control select{font:inherit;font-size:14px;color:var(--cd-text);padding:5px 8px;border:1px solid var(--cd-border);border-radius:6px;background:var(--cd-surface);min-width:0;max-width:100%}
.control input.date{width:10em}
.control input[aria-invalid=true]{border-color:#dc2626}
.controls button{font:inherit;font-size:14px;font-weight:600;padding:6px 14px;border:0;border-radius:6px;background:var(--cd-accent);color:var(--cd-on-accent);cursor:pointer}
.grid{display:grid;grid-template-columns:repeat(12,minmax(0,1fr));grid-auto-rows:${ROW_PX}px;gap:${GAP_PX}px}
.panel{position:relative;display:flex;flex-direction:column;min-width:0;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius);padding:${PANEL_PAD_Y}px ${PANEL_PAD_X}px;box-shadow:0 1px 2px rgba(15,23,42,.04);overflow:hidden;break-inside:avoid;page-break-inside:avoid}
.panel-head{display:flex;flex-wrap:wrap;align-items:flex-start;gap:4px 8px;margin:0 0 8px;min-width:0}
.panel h2{flex:1 1 9em;margin:0;font-size:13px;line-height:1.45;font-weight:600;color:var(--cd-muted);overflow-wrap:anywhere;min-width:0}
.body{flex:1;min-height:0;min-width:0;display:flex;flex-direction:column}
.chart{display:block;flex:1;min-height:0;width:100%;height:100%}
.kpi-value{margin-top:auto;margin-bottom:auto;font-size:34px;line-height:1.3;font-weight:700;letter-spacing:-.02em;color:var(--cd-text);font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.panel-text .body{color:var(--cd-text);font-size:15px;overflow-wrap:anywhere}.panel-text p{margin:0 0 8px}
.table-wrap{flex:1;min-height:0;min-width:0;overflow:auto}
table{width:100%;border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:color-mix(in srgb,var(--cd-surface) 94%,var(--cd-text));color:var(--cd-muted);font-weight:600;text-align:start;padding:6px 10px;border-bottom:1px solid var(--cd-border);white-space:nowrap}
td{padding:6px 10px;border-bottom:1px solid color-mix(in srgb,var(--cd-border) 60%,var(--cd-surface));white-space:nowrap}
.still th,.still td{white-space:normal;overflow-wrap:break-word}
.num{text-align:end}
[dir=rtl] .chart,[dir=rtl] td.num{direction:ltr}
tbody tr:nth-child(even) td{background:color-mix(in srgb,var(--cd-surface) 98%,var(--cd-text))}
.note{margin:6px 0 0;color:var(--cd-muted);font-size:12px}
.message{margin:auto;max-width:90%;text-align:center;color:var(--cd-muted);font-size:13px;padding:12px;border:1px dashed var(--cd-border);border-radius:8px;background:var(--cd-surface);overflow-wrap:anywhere}
.message-failed{color:#b45309;border-color:#fcd34d;background:#fffbeb}
.demo-mark{flex:none;font-size:10px;font-weight:700;letter-spacing:.12em;color:var(--cd-muted);border:1px solid var(--cd-border);border-radius:4px;padding:1px 6px;background:var(--cd-surface)}
.csv{flex:none;font-size:11px;font-weight:600;color:var(--cd-accent);text-decoration:none;border:1px solid color-mix(in srgb,var(--cd-accent) 35%,var(--cd-surface));border-radius:4px;padding:1px 6px}
.csv:hover{background:color-mix(in srgb,var(--cd-accent) 10%,var(--cd-surface))}
.stacked .grid{grid-template-columns:minmax(0,1fr);grid-auto-rows:auto}
.stacked .panel:not(.panel-text){min-height:${ROW_PX * 2 + GAP_PX}px}
.stacked .panel-table .body{max-height:var(--panel-h)}
@media (max-width:${STACK_BELOW_PX - 0.02}px){
.grid{grid-template-columns:minmax(0,1fr);grid-auto-rows:auto}
.panel{grid-column:1 / -1 !important;grid-row:auto !important;min-height:var(--panel-h)}
}
@media print{.panel{box-shadow:none}.controls,.csv{display:none}}
`;
