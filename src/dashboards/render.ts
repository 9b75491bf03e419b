import { FRAME_SCRIPT_INLINE } from "../http/pages";
import { BUILTIN_PRESENTATION, type Presentation } from "../view/presentation";
import { type ChartLook, chartLook, logoImg, presentationCss } from "../view/style";
import { type ColumnFormat, formatNumber, formatValue, type ViewClock } from "../view/format";
import { type Translator, translator } from "../view/messages";
import { raw } from "hono/html";
import { type Html, html, htmlString, renderPage, url } from "../view/page-shell";
import { BUILTIN_LOOK, cartesianChart, chartPoints, compactNumber, pieChart, pieSliceRows, toNumber } from "./charts";
import { CHART_TABLE_STYLE, type ChartSubject, chartTable, namedChart, tableToggle } from "./chart-reading";
import { CLICK_STYLE, clickData } from "./clicks";
import { BACK_STYLE, backControl } from "./back-control";
import type { PanelResult, Row } from "../data/query-runner";
import type { Definition, PanelDefinition } from "./definition";
import { filterControls, type Interaction, keptQuery } from "./filter-controls";
import {
  chartSize,
  DEFAULT_PAGE_WIDTH,
  geometry,
  PANEL_PAD_X,
  panelHeight,
  panelWidth,
  readingOrder,
  WIDEST_LAYOUT_FROM_PX,
  type Geometry,
} from "./layout";
import { PANEL_STYLE } from "./panel-style";
import { interpolateText, type PlaceholderContext } from "../data/placeholders";
import { localizeDefinition } from "./translations";
import type { Paper } from "../view/paper";
import { PAPER_STYLE, paperBands } from "./paper-layout";
import { paperFooterCss } from "../view/paper-footer";
import { CAPTURE_FILTERS_STYLE, captureFilters } from "./capture-filters";

/** A table panel shows at most this many rows (its CSV has them all). */
const TABLE_ROWS = 200;

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
  /** A page a person reads (the embed page, a share link): each chart has its "Show as table" control. Captures have none. */
  chartTables?: boolean;
  /** Theme, locale, time zone and direction of the view, resolved once (src/view/presentation.ts). */
  view: Presentation;
  /** Display names of result columns (table headers, chart series); default the names themselves. */
  columnNames?: Record<string, string>;
  /**
   * A capture (PNG, PDF, e-mail image): it states its filter values; on `paper`, laid out for its
   * pages (paper-layout.ts), each footed by the title and the time of rendering, `renderedAt` (default now).
   */
  capture?: { paper?: Paper; renderedAt?: Date };
}

/** How a page is shown: its width, the interactive parts of the embed page, or a capture. */
export type PageOptions = Pick<RenderInput, "width" | "fitToWindow" | "interaction" | "capture" | "chartTables">;

/**
 * One self-contained HTML document: inline CSS, charts as inline SVG, no external
 * request and no script but the frame script (height and token messages for embed.js,
 * allowed by its CSP hash); `data-render-complete="true"` on <body> since everything is
 * done on the server. The embed page and the screenshots use this same output.
 */
export function renderDashboard(given: RenderInput): string {
  const view = given.view;
  // The vendor's words in the view's language (its `translations`), then drawn as always.
  const localized = localizeDefinition(given.definition, view.locale);
  const input: RenderInput = {
    ...given,
    definition: localized.definition,
    columnNames: { ...localized.columnNames, ...given.columnNames },
  };
  const g = geometry(input.width ?? DEFAULT_PAGE_WIDTH);
  const title = input.definition.title ? interpolateText(input.definition.title, input.context) : input.dashboardName;
  const words = wordsOf(input);
  const paper = input.capture?.paper;
  const panels = paper
    ? paperBands(input.definition.panels, paper, (panel) => renderPanel(panel, input, g, words))
    : html`<div class="grid">
${readingOrder(input.definition.panels).map((panel, i) => html`${i > 0 ? "\n" : ""}${renderPanel(panel, input, g, words)}`)}
</div>`;
  const filters = input.capture ? captureFilters(input.definition, input.context, view.locale, localized.optionLabels) : "";
  const controls = input.interaction
    ? filterControls(input.definition.variables, input.context, input.interaction, view.locale, localized.optionLabels)
    : "";
  const clicks = input.interaction?.clicks ? clickData(input.definition, input.results, input.context, input.interaction, words.t) : [];
  const back = backControl(input.interaction, words.t);
  const logo = logoImg(view);
  const heading = logo ? html`<div class="brand">${logo}<h1>${title}</h1></div>` : html`<h1>${title}</h1>`;
  // A page nobody interacts with (a capture, a share link) is "still": a table there cannot be
  // scrolled sideways, so its cells wrap and every column shows.
  const main = `dashboard${g.stacked ? " stacked" : ""}${input.interaction ? "" : " still"}${paper ? " paper" : ""}`;
  // On paper, every page is footed by the title and the time of rendering (src/view/paper-footer.ts).
  const onPaper = paper ? `${PAPER_STYLE}${paperFooterCss({ title, view, renderedAt: input.capture?.renderedAt ?? new Date() })}` : "";
  return renderPage({
    root: view,
    title,
    style: `${PANEL_STYLE}${readable(input) ? CHART_TABLE_STYLE : ""}${clicks.length > 0 ? CLICK_STYLE : ""}${back ? BACK_STYLE : ""}${filters ? CAPTURE_FILTERS_STYLE : ""}${onPaper}${presentationCss(view, input.interaction ? "swap" : "block")}`,
    bodyAttributes: { "data-render-complete": "true" },
    body: html`<main class="${main}" style="padding-left:${g.padX}px;padding-right:${g.padX}px" data-width="${g.width}"${
      input.fitToWindow ? html` data-fit-window="${WIDEST_LAYOUT_FROM_PX}"` : ""
    }>
${back}<header class="dashboard-header">${heading}<p>${input.context.customer.name}</p></header>
${filters}${controls}${panels}</main>`,
    scripts: [...clicks, FRAME_SCRIPT_INLINE],
  });
}

/**
 * One panel's markup exactly as a dashboard page draws it (`<section class="panel …">`, to
 * be placed in a `.grid` of a page that carries PANEL_STYLE): the report builder and the
 * delivery of saved reports draw query results with it.
 */
export function panelMarkup(
  panel: PanelDefinition,
  result: PanelResult,
  options: { width?: number; context: PlaceholderContext; isDemo?: boolean; view?: Presentation },
): string {
  const input: RenderInput = {
    view: options.view ?? BUILTIN_PRESENTATION,
    definition: { panels: [panel], variables: [] },
    dashboardName: "",
    context: options.context,
    isDemo: options.isDemo ?? false,
    results: new Map([[panel.id, result]]),
  };
  return htmlString(renderPanel(panel, input, geometry(options.width ?? DEFAULT_PAGE_WIDTH), wordsOf(input)));
}

/** What a panel is drawn in: the view's clock and our words in its language. */
interface Words {
  clock: ViewClock;
  t: Translator;
  names: Record<string, string>;
}

function wordsOf(input: RenderInput): Words {
  const clock = { locale: input.view.locale, timezone: input.view.timezone };
  return { clock, t: translator(clock.locale), names: input.columnNames ?? {} };
}

function renderPanel(panel: PanelDefinition, input: RenderInput, g: Geometry, words: Words): Html {
  const { x, y, w, h } = panel.layout;
  const place = g.stacked ? "grid-column:1 / -1" : `grid-column:${x + 1} / span ${w};grid-row:${y + 1} / span ${h}`;
  const style = `${place};--panel-h:${panelHeight(panel)}px`;
  const isData = panel.type !== "text";
  const title = panel.title ? html`<h2>${interpolateText(panel.title, input.context)}</h2>` : "";
  const watermark = isData && input.isDemo ? html`<span class="demo-mark" aria-hidden="true">DEMO</span>` : "";
  const csv = isData && input.interaction ? csvLink(panel, input.interaction, words.t) : "";
  // Stacked panels have no grid row to fill: a chart's body gets the height it was drawn for.
  const isChart = panel.type === "bar" || panel.type === "line" || panel.type === "area" || panel.type === "pie";
  const toggle = isChart && readable(input) && hasRows(panel, input) ? tableToggle(words.t) : "";
  const head = title || watermark || csv || toggle ? html`<div class="panel-head">${title}${watermark}${toggle}${csv}</div>` : "";
  const body = g.stacked && isChart ? html` style="height:${chartSize(g, panel).height}px;flex:none"` : "";
  const click = isData && clickable(panel, input) ? html` data-click="${panel.on_click?.action}"` : "";
  return html`<section class="panel panel-${panel.type}" style="${style}" data-panel-id="${panel.id}"${click}>${head}<div class="body"${body}>${panelBody(panel, input, g, words)}</div></section>`;
}

/** Each data panel links to its rows as CSV, with the page's credential and variables. */
function csvLink(panel: PanelDefinition, interaction: Interaction, t: Translator): Html {
  const { width: _width, ...query } = keptQuery(interaction);
  const href = `${interaction.path}/panels/${encodeURIComponent(panel.id)}.csv?${new URLSearchParams(query).toString()}`;
  return html`<a class="csv" data-embed-link href="${url(href)}" download>${t("panel.csv")}</a>`;
}

/**
 * Whether the page is one the vendor's customers read (the live embed page, a share link): its
 * charts get their "Show as table" control and its tables a tab stop. Captures and the vendor's
 * previews get neither.
 */
function readable(input: RenderInput): boolean {
  return input.interaction?.clicks === true || input.chartTables === true;
}

function hasRows(panel: PanelDefinition, input: RenderInput): boolean {
  const result = input.results.get(panel.id);
  return result?.status === "ok" && result.rows.length > 0;
}

/** Whether the page's marks of `panel` answer clicks (the live embed page, a panel with on_click). */
function clickable(panel: PanelDefinition, input: RenderInput): boolean {
  return panel.on_click !== undefined && input.interaction?.clicks === true;
}

function message(text: string, kind: string): Html {
  return html`<div class="message message-${kind}">${text}</div>`;
}

/**
 * A chart's SVG as ECharts drew it, named and described (chart-reading.ts), the note under it,
 * and on a page a person reads its rows as a table for the "Show as table" control.
 */
function chart(svg: string, subject: ChartSubject, result: { rows: Row[]; truncated: boolean }, words: Words, input: RenderInput): Html {
  const tabled = readable(input) ? chartRowsTable(subject, words) : "";
  // Safe: ECharts escapes the text it writes, and every value it writes into an attribute
  // (the theme's font family and colors) is escaped by charts.ts before it is given to it;
  // namedChart escapes the name and description it adds.
  return html`${raw(namedChart(svg, subject, words.t))}${tabled}${cutNote(result, words)}`;
}

/** The "Show as table" table of a chart: the rows it draws, formatted as the panel formats them (at most TABLE_ROWS). */
function chartRowsTable(subject: ChartSubject, words: Words): Html {
  const columns = [subject.categoryColumn, ...subject.series.map((s) => s.column)];
  const shown = subject.rows.slice(0, TABLE_ROWS);
  const cells = shown.map((row) => columns.map((column) => cell(row[column] ?? null, words.clock, subject.formats[column])));
  const more = subject.rows.length > TABLE_ROWS ? tableNote(TABLE_ROWS, words) : "";
  return chartTable([subject.category, ...subject.series.map((s) => s.name)], cells, more);
}

/** What a chart panel shows, for its name, its description and its table: the rows it draws. */
function chartSubject(
  panel: PanelDefinition,
  rows: Row[],
  input: RenderInput,
  words: Words,
  formats: Record<string, ColumnFormat>,
): ChartSubject {
  const title = panel.title ? interpolateText(panel.title, input.context) : "";
  const named = (column: string) => ({ name: words.names[column] ?? column, column });
  if (panel.type === "pie") {
    const drawn = pieSliceRows(rows, (row) => toNumber(row[panel.value_column]) ?? 0).filter((row) => row !== null);
    const category = named(panel.label_column);
    return {
      kind: "pie",
      title,
      category: category.name,
      categoryColumn: panel.label_column,
      series: [named(panel.value_column)],
      rows: drawn,
      clock: words.clock,
      formats,
    };
  }
  if (panel.type !== "bar" && panel.type !== "line" && panel.type !== "area") throw new Error(`not a chart: ${panel.type}`);
  const category = named(panel.x_column);
  return {
    kind: panel.type,
    title,
    category: category.name,
    categoryColumn: panel.x_column,
    series: panel.y_columns.map(named),
    rows: chartPoints(rows),
    clock: words.clock,
    formats,
  };
}

function panelBody(panel: PanelDefinition, input: RenderInput, g: Geometry, words: Words): Html {
  const { clock, t, names } = words;
  if (panel.type === "text") {
    const paragraphs = interpolateText(panel.text, input.context).split(/\n{2,}/);
    return html`${paragraphs.map((paragraph) => html`<p>${paragraph.split("\n").map((line, i) => html`${i > 0 ? html`<br>` : ""}${line}`)}</p>`)}`;
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
      // On paper a table prints every row it has; on screen it scrolls inside its panel.
      return table(rows, result.truncated, { clock, t, formats, names }, input.capture?.paper ? rows.length : TABLE_ROWS, readable(input));
    case "pie":
      return chart(
        pieChart(rows, panel.label_column, panel.value_column, chartSize(g, panel), { clock, formats, names }, look(input)),
        chartSubject(panel, rows, input, words, formats),
        result,
        words,
        input,
      );
    default:
      return chart(
        cartesianChart(
          panel.type,
          rows,
          panel.x_column,
          panel.y_columns,
          chartSize(g, panel),
          { clock, formats, names },
          look(input),
          clickable(panel, input),
        ),
        chartSubject(panel, rows, input, words, formats),
        result,
        words,
        input,
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
  return chartLook(input.view, BUILTIN_LOOK);
}

/** A chart over the row limit (QUERY_ROW_LIMIT) says that it shows only the first rows. */
function cutNote(result: { rows: Row[]; truncated: boolean }, words: Words): Html | "" {
  return result.truncated
    ? html`<p class="note">${words.t("panel.cut", { count: formatNumber(result.rows.length, words.clock.locale) }, result.rows.length)}</p>`
    : "";
}

/** KPI values shrink to fit their panel (34 px down to 16 px) and wrap as a last resort. */
function kpi(panel: PanelDefinition, row: Row, context: PlaceholderContext, innerWidth: number, clock: ViewClock): Html {
  const shown = "value" in row ? row.value : Object.values(row)[0];
  const value = typeof shown === "number" ? shown : Number(shown);
  const format = panel.format ?? {};
  let text: string;
  if (shown === null || shown === undefined || !Number.isFinite(value)) {
    text = shown === null || shown === undefined ? "—" : String(shown);
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
  const characters = (format.prefix ?? "").length + text.length + (format.suffix ?? "").length;
  const size = Math.max(16, Math.min(34, Math.floor(innerWidth / (Math.max(1, characters) * 0.64))));
  // A number reads left to right on a right-to-left page too.
  return html`<div class="kpi-value" style="font-size:${size}px"><bdi dir="ltr">${format.prefix}${text}${format.suffix}</bdi></div>`;
}

function cell(value: unknown, clock: ViewClock, format: ColumnFormat | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" && format === undefined && Math.abs(value) >= 1e15) return compactNumber(value, clock.locale);
  return formatValue(value, clock, format);
}

function table(
  rows: Row[],
  truncated: boolean,
  view: { clock: ViewClock; t: Translator; formats: Record<string, ColumnFormat>; names: Record<string, string> },
  shown: number,
  /** On a page a person reads: a table taller than its panel scrolls there, and a keyboard must reach it (WCAG 2.1.1). */
  focusable = false,
): Html {
  const columns = Object.keys(rows[0]);
  const numeric = columns.map((column) => rows.some((row) => typeof row[column] === "number"));
  const num = (i: number) => (numeric[i] ? html` class="num"` : "");
  const head = columns.map((column, i) => html`<th${num(i)}>${view.names[column] ?? column}</th>`);
  const body = rows
    .slice(0, shown)
    .map(
      (row) => html`<tr>${columns.map((column, i) => html`<td${num(i)}>${cell(row[column], view.clock, view.formats[column])}</td>`)}</tr>`,
    );
  const more = rows.length > shown || truncated ? tableNote(shown, view) : "";
  return html`<div class="table-wrap"${focusable ? html` tabindex="0"` : ""}><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}

/** Under a table that shows only its first `shown` rows. */
function tableNote(shown: number, view: { clock: ViewClock; t: Translator }): Html {
  return html`<p class="note">${view.t("panel.table_first", { count: formatNumber(shown, view.clock.locale) }, shown)}</p>`;
}
