import CLICK_SCRIPT from "#browser/clicks.js";
import type { PanelResult, Row } from "../data/query-runner";
import type { PlaceholderContext } from "../data/placeholders";
import { inlineScriptHash } from "../http/pages";
import { chartPoints, pieSliceRows, toNumber } from "./charts";
import type { ClickState, PanelClicks } from "../view/click-data";
import { clickColumn, type Definition, type PanelDefinition } from "./definition";
import type { Translator } from "../view/messages";
import type { Script } from "../view/page-shell";

// The live embed page's clicks (docs/embedding.md "Clicks"): what the page's click
// script (src/dashboards/browser/clicks.ts) is handed as data, and the look of clickable marks.
// Only the embed route asks for it (Interaction.clicks): captures, PDFs, e-mails, share links
// and previews carry neither the data, nor the script, nor a tabindex.

/** The rows behind a panel's marks, in the order the marks were drawn. */
function markRows(panel: PanelDefinition, rows: Row[]): (Row | null)[] {
  switch (panel.type) {
    case "bar":
    case "line":
    case "area":
      return chartPoints(rows);
    case "pie":
      return pieSliceRows(rows, (row) => toNumber(row[panel.value_column]) ?? 0);
    case "kpi":
      return rows.slice(0, 1);
    case "table":
      return rows.slice(0, 200);
    default:
      return [];
  }
}

/**
 * The data block and the click script of a live embed page: the page's unlocked variables
 * (posted to the host on load), the locked ones (a click never changes them), and each
 * clickable panel's action and rows. Pages with no clickable panel and no variable get nothing.
 */
export function clickData(
  definition: Definition,
  results: Map<string, PanelResult>,
  context: PlaceholderContext,
  interaction: { path: string; locked: string[] },
  t: Translator,
): Script[] {
  const panels: Record<string, PanelClicks> = {};
  for (const panel of definition.panels) {
    const click = panel.on_click;
    const result = results.get(panel.id);
    if (!click || panel.type === "text" || result?.status !== "ok" || result.rows.length === 0) continue;
    const rows = markRows(panel, result.rows);
    const column = clickColumn(panel) ?? Object.keys(result.rows[0])[0] ?? null;
    panels[panel.id] =
      click.action === "filter"
        ? { action: "filter", column, variable: click.variable, rows }
        : click.action === "open"
          ? { action: "open", column, dashboard: click.dashboard, targets: click.variables, rows }
          : { action: "emit", column, rows };
  }
  const unlocked = definition.variables.filter((v) => !interaction.locked.includes(v.name));
  if (Object.keys(panels).length === 0 && unlocked.length === 0) return [];
  const state: ClickState = {
    path: interaction.path,
    variables: Object.fromEntries(unlocked.map((v) => [v.name, context.variables[v.name] ?? null])),
    locked: interaction.locked,
    panels,
    // Left with their `{what}` slot: the script fills it per mark.
    words: { filter: t("chart.mark_filter"), open: t("chart.mark_open"), select: t("chart.mark_select") },
  };
  return [{ json: state, id: CLICK_DATA_ID }, { inline: CLICK_SCRIPT }];
}

/** The `id` of the click data block. */
const CLICK_DATA_ID = "dashboard-clicks";

/** In a page that carries the click script (its data block, as the page shell writes it). */
export const CLICK_DATA_MARK = `<script type="application/json" id="${CLICK_DATA_ID}">`;

/** `'sha256-…'` of the click script, for the live embed page's `script-src`. */
export function clickScriptHash(): Promise<string> {
  return inlineScriptHash(CLICK_SCRIPT);
}

/** Clickable marks (their words for a screen reader only in `.cd-sr`, in the flow: an absolute one would escape a table's scrolling box): a pointer, a focus ring in the theme's accent (--cd-focus: 3:1 against the page), the selected value of a click filter highlighted (the others dimmed). */
export const CLICK_STYLE = `
[data-pick]{cursor:pointer}
.cd-sr{display:inline-block;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap;border:0;vertical-align:top}
[data-pick]:focus{outline:none}
svg [data-pick]:focus-visible{outline:3px solid var(--cd-focus);outline-offset:2px;stroke:var(--cd-focus);stroke-width:3px}
tr[data-pick]:focus-visible,.kpi-value[data-pick]:focus-visible{outline:3px solid var(--cd-focus);outline-offset:-3px}
svg [data-pick]:hover{opacity:.82}
.picking svg [data-pick]:not([aria-pressed=true]){opacity:.4}
svg [data-pick][aria-pressed=true]{stroke:var(--cd-text);stroke-width:2px}
tr[data-pick]:hover td{background:color-mix(in srgb,var(--cd-accent) 8%,var(--cd-surface))}
tr[data-pick][aria-pressed=true] td{background:color-mix(in srgb,var(--cd-accent) 18%,var(--cd-surface));font-weight:600}
`;
