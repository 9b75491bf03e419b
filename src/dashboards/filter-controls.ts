import { datePattern, showDate } from "../view/date-field";
import { translator } from "../view/messages";
import type { PlaceholderContext } from "../data/placeholders";
import { type Html, html, url } from "../view/page-shell";
import type { VariableDefinition } from "./definition";

// The embed page's filter controls (docs/embedding.md, "Filter controls"): a GET form over the
// declared controls, and the page's query that its links and the form keep.

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

/** The page's query without `var_` values of locked variables (they would change nothing). */
export function keptQuery(interaction: Interaction): Record<string, string> {
  const locked = new Set(interaction.locked.map((name) => `var_${name}`));
  return Object.fromEntries(Object.entries(interaction.query).filter(([name]) => !locked.has(name)));
}

type Controlled = VariableDefinition & { control: NonNullable<VariableDefinition["control"]> };

/**
 * A GET form over the declared controls (`var_<name>` fields): works without script. The
 * page's other parameters (credential, environment, width, other variables) ride along
 * as hidden fields; locked variables get no field at all.
 */
export function filterControls(
  variables: VariableDefinition[],
  context: PlaceholderContext,
  interaction: Interaction,
  locale: string,
  optionLabels: Map<string, Map<string, string>>,
): Html | "" {
  const t = translator(locale);
  const controlled = variables.filter((v): v is Controlled => v.control !== undefined && !interaction.locked.includes(v.name));
  if (controlled.length === 0) return "";
  const names = new Set(controlled.map((v) => `var_${v.name}`));
  const hidden = Object.entries(keptQuery(interaction))
    .filter(([name]) => !names.has(name))
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const fields = controlled.map((variable) => control(variable, context, locale, optionLabels.get(variable.name)));
  return html`<form class="controls" method="get" action="${url(interaction.path)}">${hidden}${fields}<button type="submit">${t("filter.apply")}</button></form>\n`;
}

/** One control: a select, a date field in the locale's format, or a text field. */
function control(variable: Controlled, context: PlaceholderContext, locale: string, labels: Map<string, string> | undefined): Html {
  const control = variable.control;
  const name = `var_${variable.name}`;
  const given = context.variables[variable.name];
  const value = given === undefined || given === null ? "" : typeof given === "object" ? JSON.stringify(given) : String(given);
  const label = control.label ?? variable.label ?? variable.name;
  let input: Html;
  if (control.type === "select") {
    const options = control.options ?? [];
    const all = options.includes(value) || value === "" ? options : [value, ...options];
    input = html`<select name="${name}" id="${name}">${all.map(
      (option) => html`<option value="${option}"${option === value ? html` selected` : ""}>${labels?.get(option) ?? option}</option>`,
    )}</select>`;
  } else if (control.type === "date") {
    // Shown in the locale's format (a browser's own date input shows the browser's), the
    // ISO date in the hidden field the form submits: the frame script keeps the two in step.
    const pattern = datePattern(locale);
    input = html`<input type="text" id="${name}" value="${showDate(value, locale)}" data-date-of="${name}" placeholder="${pattern}" title="${pattern}" inputmode="numeric" autocomplete="off" class="date"><input type="hidden" name="${name}" value="${value}">`;
  } else {
    input = html`<input type="text" name="${name}" id="${name}" value="${value}">`;
  }
  return html`<label class="control" for="${name}"><span>${label}</span>${input}</label>`;
}
