// What a live embed page hands its click script (docs/embedding.md "Clicks"): the server writes it as the page's
// `dashboard-clicks` JSON block (src/dashboards/clicks.ts), the script reads it
// (src/dashboards/browser/clicks.ts). One declaration for both sides: types only, no import
// (browser code may import it, scripts/check-imports.mjs BROWSER_SHARED).

/** A result row as the page carries it: values by result column. */
export type ClickRow = Record<string, unknown>;

/** One clickable panel: its action and the row behind each mark (by ECharts' data index, or table row). */
export interface PanelClicks {
  action: "filter" | "open" | "emit";
  /** The result column a click reports (and a filter takes). */
  column: string | null;
  variable?: string;
  dashboard?: string;
  /** `open`: the target's variables, each from a result column. */
  targets?: Record<string, string>;
  rows: (ClickRow | null)[];
}

/** The whole block: the page's path, its unlocked variables (posted to the host on load), the locked ones, the clickable panels. */
export interface ClickState {
  path: string;
  variables: Record<string, unknown>;
  locked: string[];
  panels: Record<string, PanelClicks>;
  /** The marks' accessible names in the view's language, each with a `{what}` slot (docs/accessibility.md). */
  words: { filter: string; open: string; select: string };
}
