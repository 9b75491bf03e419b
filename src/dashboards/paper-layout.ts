import { type Html, html } from "../view/page-shell";
import type { Paper } from "../view/paper";
import type { PanelDefinition } from "./definition";
import { GAP_PX, readingOrder, ROW_PX, SIDE_PAD_PX } from "./layout";

// A dashboard on paper (docs/delivery.md, "PDF pages"). The grid is cut into bands — runs of
// panels whose rows overlap — and each band is a grid of its own that a page break may not
// cut: a band that does not fit on what is left of a page starts the next one. A band with a
// table grows with the table's rows (all of them, not those that fit its grid height) and
// starts where it stands, its panel heading kept with its first rows; the table continues
// over pages with its header row repeated (Chromium repeats `<thead>`) and no row split; the
// band's other panels stay whole. A band taller than a page without a table is scaled into
// one: its rows are shrunk, so its charts are drawn for the height they get.
// `page_break_before` starts a band on a new page. Every page's footer is the page's own
// (src/view/paper-footer.ts).

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
.paper .band.grows{break-inside:auto}
.paper .band.grows>.panel:not(.panel-table),.paper .panel-table .panel-head,.paper thead{break-inside:avoid}
.paper .panel-table .panel-head{break-after:avoid}
.paper .band.break-before{break-before:page}
.paper .panel-table{overflow:visible;break-inside:auto}
.paper .panel-table .body,.paper .table-wrap{flex:none;overflow:visible;max-height:none}
.paper th{position:static}
.paper thead{display:table-header-group}
.paper tr{break-inside:avoid}
`;
