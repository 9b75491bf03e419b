import type { PanelDefinition } from "./definition";

/**
 * Grid geometry (docs/embedding.md, "Responsive layout"): 12 columns, rows of 64 px with
 * 16 px gaps, at most 1200 px of content. Below 640 px panels stack in one column in
 * reading order. Charts are drawn for the pixel size their panel really has at the
 * page's width, so chart text keeps its size on every screen.
 */
export const ROW_PX = 64;
export const GAP_PX = 16;
export const MAX_CONTENT_PX = 1200;
export const STACK_BELOW_PX = 640;
export const PANEL_PAD_X = 16;
export const PANEL_PAD_Y = 14;
const TITLE_PX = 27; // one 13 px line at 1.45 line height + 8 px margin
export const DEFAULT_PAGE_WIDTH = 1280;
const MIN_PAGE_WIDTH = 320;
const MAX_PAGE_WIDTH = 4096;

/**
 * The width a page is drawn for, from its `width` query parameter (320–4096 px; what
 * embed.js sends; out-of-range values are clamped). Without a usable one the page is drawn
 * at the default and fits itself to the window it is opened in on its own (a share link on
 * a phone): the frame script asks once more with the window's width.
 */
export function pageWidth(value: string | undefined): { width: number; fitToWindow: boolean } {
  const parsed = value === undefined ? NaN : Number(value);
  if (!Number.isFinite(parsed)) return { width: DEFAULT_PAGE_WIDTH, fitToWindow: true };
  return { width: Math.min(MAX_PAGE_WIDTH, Math.max(MIN_PAGE_WIDTH, Math.round(parsed))), fitToWindow: false };
}

export interface Geometry {
  width: number;
  stacked: boolean;
  padX: number;
  content: number;
  column: number;
}

export const SIDE_PAD_PX = 16;
/** From this page width on, every width draws the same page (the content is at its widest). */
export const WIDEST_LAYOUT_FROM_PX = MAX_CONTENT_PX + 2 * SIDE_PAD_PX;

/** Where panels go at a page width (px). */
export function geometry(width: number): Geometry {
  const stacked = width < STACK_BELOW_PX;
  const padX = stacked ? 12 : SIDE_PAD_PX;
  const content = Math.max(200, Math.min(width - 2 * padX, MAX_CONTENT_PX));
  return { width, stacked, padX, content, column: (content - 11 * GAP_PX) / 12 };
}

export function panelWidth(g: Geometry, panel: PanelDefinition): number {
  return g.stacked ? g.content : g.column * panel.layout.w + GAP_PX * (panel.layout.w - 1);
}

export function panelHeight(panel: PanelDefinition): number {
  return panel.layout.h * ROW_PX + (panel.layout.h - 1) * GAP_PX;
}

/** The chart area inside a panel: what is left after border, padding and title. */
export function chartSize(g: Geometry, panel: PanelDefinition): { width: number; height: number } {
  const title = panel.title ? TITLE_PX : 0;
  const width = Math.floor(panelWidth(g, panel) - 2 * PANEL_PAD_X - 2);
  const height = Math.floor(panelHeight(panel) - 2 * PANEL_PAD_Y - 2 - title);
  return { width: Math.max(80, width), height: Math.max(g.stacked ? 180 : 80, height) };
}

/** Reading order: top to bottom, then left to right (the order panels stack in). */
export function readingOrder<P extends Pick<PanelDefinition, "layout">>(panels: readonly P[]): P[] {
  return [...panels].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
}
