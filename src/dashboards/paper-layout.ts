import type { PlaceholderContext } from "../data/placeholders";
import { interpolateText } from "../data/placeholders";
import { dateTimeFormat } from "../view/format";
import { translator } from "../view/messages";
import { fillMarkup, type Html, html, htmlString } from "../view/page-shell";
import { type Paper, printSizes } from "../view/paper";
import { documentOf, type Presentation } from "../view/presentation";
import type { Definition, PanelDefinition } from "./definition";
import { GAP_PX, readingOrder, ROW_PX, SIDE_PAD_PX } from "./layout";
import { localizeDefinition } from "./translations";

// A dashboard on paper (docs/delivery.md, "PDF pages"). The grid is cut into bands — runs of
// panels whose rows overlap — and each band is a grid of its own that a page break may not
// cut: a band that does not fit on what is left of a page starts the next one. A band with a
// table grows with the table's rows (all of them, not those that fit its grid height); the
// table continues over pages with its header row repeated (Chromium repeats `<thead>`) and
// no row split. A band taller than a page without a table is scaled into one: its rows are
// shrunk, so its charts are drawn for the height they get. `page_break_before` starts a band
// on a new page.

/** The width a dashboard on `paper` is drawn at: the printable width is its content's width. */
export function paperPageWidth(paper: Paper): number {
  return paper.printableWidthPx + 2 * SIDE_PAD_PX;
}

interface Band {
  top: number;
  bottom: number;
  panels: PanelDefinition[];
  breakBefore: boolean;
}

/** The panels in bands (each its own unbreakable grid), each panel drawn by `draw` with its layout relative to its band. */
export function paperBands(panels: readonly PanelDefinition[], paper: Paper, draw: (panel: PanelDefinition) => Html): Html {
  const bands: Band[] = [];
  for (const panel of readingOrder(panels)) {
    const { y, h } = panel.layout;
    const last = bands.at(-1);
    // A panel that starts below every panel so far starts a band; one whose rows overlap joins it.
    if (last && y < last.bottom) {
      last.panels.push(panel);
      last.bottom = Math.max(last.bottom, y + h);
    } else bands.push({ top: y, bottom: y + h, panels: [panel], breakBefore: panel.page_break_before === true });
  }
  return html`${bands.map((band) => drawBand(band, paper, draw))}`;
}

/** Rows' height in px (gaps between them included). */
const rowsPx = (rows: number) => rows * ROW_PX + (rows - 1) * GAP_PX;

function drawBand(band: Band, paper: Paper, draw: (panel: PanelDefinition) => Html): Html {
  const rows = band.bottom - band.top;
  // The last row of each table grows with its rows; every other row keeps its grid height.
  const growing = new Set(band.panels.filter((p) => p.type === "table").map((p) => p.layout.y + p.layout.h - 1 - band.top));
  // Rows that fit on one page: a band taller than that, with nothing growing, is scaled into it.
  const fit = Math.max(1, Math.floor((paper.printableHeightPx + GAP_PX) / (ROW_PX + GAP_PX)));
  const scale = growing.size === 0 && rows > fit ? fit / rows : 1;
  const shown = scale < 1 ? fit : rows;
  const template = Array.from({ length: shown }, (_, row) => (growing.has(row) ? `minmax(${ROW_PX}px,auto)` : `${ROW_PX}px`)).join(" ");
  const cells = band.panels.map((panel) => {
    const top = Math.floor((panel.layout.y - band.top) * scale);
    const bottom = Math.max(top + 1, Math.min(shown, Math.round((panel.layout.y + panel.layout.h - band.top) * scale)));
    return draw({ ...panel, layout: { ...panel.layout, y: top, h: bottom - top } });
  });
  const kind = `grid band${band.breakBefore ? " break-before" : ""}${growing.size > 0 ? " grows" : ""}`;
  return html`<div class="${kind}" style="grid-template-rows:${template}" data-rows-px="${rowsPx(shown)}">
${cells}
</div>
`;
}

/** The CSS of a dashboard on paper (on top of PANEL_STYLE). */
export const PAPER_STYLE = `
.dashboard.paper{max-width:none;padding:0 !important}
.paper .dashboard-header,.paper .capture-filters{break-after:avoid}
.paper .band{grid-auto-rows:${ROW_PX}px;margin:0 0 ${GAP_PX}px;break-inside:avoid}
.paper .band.break-before{break-before:page}
.paper .panel-table{overflow:visible;break-inside:auto}
.paper .panel-table .body,.paper .table-wrap{flex:none;overflow:visible;max-height:none}
.paper th{position:static}
.paper thead{display:table-header-group}
.paper tr{break-inside:avoid}
`;

/** A dashboard's heading, as the page shows it: its title in the view's language, placeholders filled, else its name. */
function titleOf(definition: Definition, dashboardName: string, context: PlaceholderContext, locale: string): string {
  const title = localizeDefinition(definition, locale).definition.title;
  return title ? interpolateText(title, context) : dashboardName;
}

/** What the capture needs to print a dashboard on paper: the page and margins in inches, the footer of every page. */
export interface PaperPrint {
  /** The page in points, exactly (Chromium's own is rounded to 1/300 inch). */
  widthPt: number;
  heightPt: number;
  paperWidth: number;
  paperHeight: number;
  margin: number;
  /** Chromium's footer template: the title, the time of rendering, "page N of M" (its pageNumber and totalPages). */
  footerTemplate: string;
}

/**
 * The print of a dashboard on `paper`: every page footed by its title, the time of rendering
 * in the view's locale and time zone, and "page N of M" in the view's language (our words).
 */
export function paperPrint(
  paper: Paper,
  dashboard: { definition: Definition; dashboardName: string; context: PlaceholderContext; view: Presentation },
  now: Date,
): PaperPrint {
  const { view } = dashboard;
  const t = translator(view.locale);
  const time = dateTimeFormat(view.locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: view.timezone,
    timeZoneName: "short",
  }).format(now);
  const page = fillMarkup(t("capture.page"), {
    page: html`<span class="pageNumber"></span>`,
    pages: html`<span class="totalPages"></span>`,
  });
  // The footer is a document of its own, drawn in the bottom margin: its size and colors are its own.
  const style = `font-size:8px;width:100%;margin:0 ${paper.marginPx.toFixed(1)}px;display:flex;justify-content:space-between;gap:12px;color:#555;font-family:${footerFont(view)}`;
  const footer = html`<div lang="${view.locale}" dir="${view.dir}" style="${style}"><span>${titleOf(dashboard.definition, dashboard.dashboardName, dashboard.context, view.locale)}</span><span>${t("capture.rendered", { time })}</span><span>${page}</span></div>`;
  return { widthPt: paper.widthPt, heightPt: paper.heightPt, ...printSizes(paper), footerTemplate: htmlString(footer) };
}

/** The theme's font family for the footer (its own document has no web fonts: a system font stands in after it). */
function footerFont(view: Presentation): string {
  return `${documentOf(view).font_family},sans-serif`;
}
