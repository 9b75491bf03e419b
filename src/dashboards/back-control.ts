import type { Translator } from "../view/messages";
import { type Html, html } from "../view/page-shell";
import type { Interaction } from "./filter-controls";

// The Back control of a page a drill-through opened (docs/embedding.md "Clicks"): the
// drill-through names the dashboard the frame was opened on (`home`, src/dashboards/drill-through.ts),
// and the live page shows a Back control while it is not that dashboard. Pressed, the frame script
// (src/http/browser/frame.ts) asks `<dashboard-embed>` to show its dashboard again (in a frame
// without the element: the frame's history goes back). Captures and share links have none.

/** The query parameter of a drill-through's target: the embed id of the dashboard the frame was opened on. */
export const HOME_PARAMETER = "home";

/** The control, on a live embed page opened by a drill-through ("" on any other page). */
export function backControl(interaction: Interaction | undefined, t: Translator): Html | "" {
  if (!interaction?.clicks || !interaction.query[HOME_PARAMETER]) return "";
  return html`<nav class="drill-back"><button type="button" data-drill-back><span class="arrow" aria-hidden="true">←</span> ${t("drill.back")}</button></nav>\n`;
}

/** Its look: the theme's surface, border, text and radius; the accent's focus ring; the arrow mirrored in right-to-left pages. */
export const BACK_STYLE =
  ".drill-back{margin:0 0 12px}" +
  ".drill-back button{font:inherit;font-size:14px;line-height:20px;padding:8px 14px;min-height:36px;cursor:pointer;" +
  "color:var(--cd-text);background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius)}" +
  ".drill-back button:hover{border-color:var(--cd-accent)}" +
  ".drill-back button:focus-visible{outline:2px solid var(--cd-accent);outline-offset:2px}" +
  '.drill-back .arrow{display:inline-block}[dir="rtl"] .drill-back .arrow{transform:scaleX(-1)}';
