import type { PlaceholderContext } from "../data/placeholders";
import { showDate } from "../view/date-field";
import { formatNumber } from "../view/format";
import { type Html, html } from "../view/page-shell";
import type { Definition } from "./definition";

// The filter line of a capture (docs/delivery.md, "What a capture shows"): a PNG, a PDF or an
// e-mail image has no filter form, so under its title it says which values it shows — each
// control's label and value in the view's formatting (a date as the locale writes it, a select
// by its option's label) — unless the definition sets `show_filters_in_captures: false`.

/** `—` for a control without a value: the capture says so rather than leaving it out. */
const NO_VALUE = "—";

/** The filter line of a capture ("" when the definition has no controls or hides the line). */
export function captureFilters(
  definition: Definition,
  context: PlaceholderContext,
  locale: string,
  optionLabels: Map<string, Map<string, string>>,
): Html | "" {
  if (definition.show_filters_in_captures === false) return "";
  const shown = definition.variables.flatMap((variable) => {
    const control = variable.control;
    if (control === undefined) return [];
    const label = control.label ?? variable.label ?? variable.name;
    const given = context.variables[variable.name];
    let value: string;
    if (given === undefined || given === null || given === "") value = NO_VALUE;
    else if (typeof given === "number") value = formatNumber(given, locale);
    else if (typeof given === "object") value = JSON.stringify(given);
    else if (control.type === "date") value = showDate(String(given), locale);
    else value = optionLabels.get(variable.name)?.get(String(given)) ?? String(given);
    // Each label and value isolated (its own direction): "Product: seats" reads whole on a right-to-left page too.
    return [html`<bdi class="capture-filter"><span class="capture-filter-label">${label}:</span> <bdi>${value}</bdi></bdi>`];
  });
  if (shown.length === 0) return "";
  return html`<p class="capture-filters">${shown.map((part, i) => html`${i > 0 ? " · " : ""}${part}`)}</p>\n`;
}

/** The filter line's CSS (on top of PANEL_STYLE). */
export const CAPTURE_FILTERS_STYLE = `.capture-filters{margin:-8px 0 16px;color:var(--cd-muted);font-size:13px;overflow-wrap:anywhere}.capture-filter-label{font-weight:600}.capture-filter>bdi{color:var(--cd-text)}
`;
