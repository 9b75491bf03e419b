import { type Html, html } from "../view/page-shell";
import type { Paper } from "../view/paper";
import type { PanelDefinition } from "./definition";
import { GAP_PX, readingOrder, ROW_PX, SIDE_PAD_PX } from "./layout";

// A dashboard on paper (docs/delivery.md, "PDF pages"). The grid is cut into bands — runs of
// panels whose rows overlap — and each band is a grid of its own that a page break may not
// cut: a band that does not fit on what is left of a page starts the next one. A band with a
// table is a row of columns instead (growingBand): it starts where it stands and grows with
// the table's rows (all of them, not those that fit its grid height), the table's heading
// kept with its first rows; the table continues over pages with its header row repeated
// (Chromium repeats `<thead>`) and no row split; the band's other panels stay whole. A band
// taller than a page without a table is scaled into one: its rows are shrunk, so its charts
// are drawn for the height they get. `page_break_before` starts a band on a new page. Every
// page's footer is the page's own (src/view/paper-footer.ts).

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

/** The panels in bands (an unbreakable grid, or a growing row of columns), each panel drawn by `draw`. */
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
  if (band.panels.some((p) => p.type === "table")) return growingBand(band, draw);
  const rows = band.bottom - band.top;
  // Rows that fit on one page: a band taller than that is scaled into it.
  const fit = Math.max(1, Math.floor((paper.printableHeightPx + GAP_PX) / (ROW_PX + GAP_PX)));
  const scale = rows > fit ? fit / rows : 1;
  const shown = scale < 1 ? fit : rows;
  const template = Array.from({ length: shown }, () => `${ROW_PX}px`).join(" ");
  const cells = band.panels.map((panel) => {
    const top = Math.floor((panel.layout.y - band.top) * scale);
    const bottom = Math.max(top + 1, Math.min(shown, Math.round((panel.layout.y + panel.layout.h - band.top) * scale)));
    return draw({ ...panel, layout: { ...panel.layout, y: top, h: bottom - top } });
  });
  return html`<div class="grid band${band.breakBefore ? " break-before" : ""}" style="grid-template-rows:${template}">
${cells}
</div>
`;
}

/** The width of `columns` of the 12 grid columns in a row as wide as the grid (its gaps included). */
const columnsWidth = (columns: number) => `calc((100% - ${11 * GAP_PX}px) * ${columns} / 12 + ${(columns - 1) * GAP_PX}px)`;

/**
 * A band with a table: a row of columns — the band's panels grouped where their grid columns
 * overlap, each group stacked in its own column — not a grid. Chromium sizes grid rows
 * before it breaks pages, so the height a table gains on paper (its header row repeated on
 * every page, rows pushed whole to the next) would run out of its panel and under the next
 * band; a flex row of block columns grows with what it holds (flex columns inside it did not).
 * A table keeps at least its grid height; every other panel keeps exactly its own, and is not cut.
 */
function growingBand(band: Band, draw: (panel: PanelDefinition) => Html): Html {
  const columns: { from: number; to: number; panels: PanelDefinition[] }[] = [];
  for (const panel of [...band.panels].sort((a, b) => a.layout.x - b.layout.x || a.layout.y - b.layout.y)) {
    const { x, w } = panel.layout;
    const last = columns.at(-1);
    if (last && x < last.to) {
      last.panels.push(panel);
      last.to = Math.max(last.to, x + w);
    } else columns.push({ from: x, to: x + w, panels: [panel] });
  }
  let end = 0;
  const drawn = columns.map((column) => {
    // Grid columns left empty before this one keep their place.
    const skip = column.from > end ? `margin-inline-start:calc(${columnsWidth(column.from - end)} + ${GAP_PX}px);` : "";
    end = column.to;
    const panels = column.panels
      .sort((a, b) => a.layout.y - b.layout.y)
      .map((panel) => {
        return html`<div class="cell${panel.type === "table" ? " grows" : ""}" style="--cell-h:${rowsPx(panel.layout.h)}px">${draw(panel)}</div>`;
      });
    return html`<div class="column" style="${skip}width:${columnsWidth(column.to - column.from)}">${panels}</div>`;
  });
  return html`<div class="band grows${band.breakBefore ? " break-before" : ""}">
${drawn}
</div>
`;
}

/** The CSS of a dashboard on paper (on top of PANEL_STYLE). */
export const PAPER_STYLE = `
.dashboard.paper{max-width:none;padding:0 !important}
.paper .dashboard-header,.paper .capture-filters{break-after:avoid}
.paper .band{grid-auto-rows:${ROW_PX}px;margin:0 0 ${GAP_PX}px;break-inside:avoid}
.paper .band.grows{display:flex;align-items:flex-start;gap:${GAP_PX}px;break-inside:auto}
.paper .column{flex:none;min-width:0}
.paper .cell+.cell{margin-top:${GAP_PX}px}
.paper .cell{break-inside:avoid}
.paper .cell>.panel{height:var(--cell-h)}
.paper .cell.grows>.panel{height:auto;min-height:var(--cell-h)}
.paper .cell.grows,.paper .cell.grows>.panel{break-inside:auto}
.paper .panel-table .panel-head,.paper thead{break-inside:avoid}
.paper .panel-table .panel-head{break-after:avoid}
.paper .band.break-before{break-before:page}
.paper .panel-table{overflow:visible;break-inside:auto}
.paper .panel-table .body,.paper .table-wrap{flex:none;overflow:visible;max-height:none}
.paper th{position:static}
.paper thead{display:table-header-group}
.paper tr{break-inside:avoid}
`;
