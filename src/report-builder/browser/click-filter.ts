/**
 * Clicking a bar (or pie slice) of a grouped result, or one of its table rows, toggles an `eq`
 * filter on the group column with the clicked value (docs/report-builder.md). The filter goes
 * into the same list the controls edit, so it is shown there, can be changed or removed there,
 * and is saved with the report. The marks are found in the service's SVG by the metadata
 * ECharts' server-side renderer writes on them (`ecmeta_data_index`): no chart library here.
 */
import { t } from "./words";
import { columnOf, type FilterChoice } from "./query";
import { el, formatValue } from "./dom";
import { currentDataset, page } from "./page";
import { post } from "./parent";
import { changed } from "./redraw";
import { whenResultShown } from "./result";

// What the service draws (src/dashboards/charts.ts): at most 1,000 points per series, sampled at
// even steps, and at most 50 pie slices (more are summed into "Other", which is no one value).
const CHART_POINTS = 1000;
const PIE_SLICES = 50;

/** The group columns a click filters on, each with the clicked row's value. */
type Picked = { column: string; value: unknown }[];

/** The mark (or row) a keyboard activation came from, found again in the result drawn after it. */
let refocus = "";

function isSet(f: FilterChoice, p: Picked[number]): boolean {
  if (f.column !== p.column) return false;
  return p.value === null ? f.op === "is_null" : f.op === "eq" && f.value === String(p.value);
}

function toggle(picked: Picked, row: Record<string, unknown>, key: string): void {
  const on = picked.every((p) => page.state.filters.some((f) => isSet(f, p)));
  // One click filter per group column: a click on another value replaces it.
  const columns = picked.map((p) => p.column);
  page.state.filters = page.state.filters.filter((f) => columns.indexOf(f.column) < 0 || (f.op !== "eq" && f.op !== "is_null"));
  if (!on) {
    for (const p of picked) {
      // A row without a value (SQL NULL) is matched by "is empty": `eq null` matches nothing.
      page.state.filters.push({
        column: p.column,
        op: p.value === null ? "is_null" : "eq",
        value: p.value === null ? "" : String(p.value),
        values: [],
      });
    }
  }
  refocus = key;
  post({ type: "click", column: picked[0].column, value: picked[0].value, row });
  changed();
}

/** Makes `node` answer a click (and a mark Enter and Space, which a button does itself) with the toggle, and says what it does. */
function clickable(node: Element, picked: Picked, row: Record<string, unknown>, key: string): void {
  const dataset = currentDataset();
  const what = picked.map(
    (p) => `${columnOf(dataset, p.column)?.display_name || p.column} ${p.value === null ? t("empty") : formatValue(p.value)}`,
  );
  node.setAttribute("aria-label", t("filter_on_what", { what: what.join(", ") }));
  node.setAttribute("aria-pressed", String(picked.every((p) => page.state.filters.some((f) => isSet(f, p)))));
  node.addEventListener("click", () => toggle(picked, row, key));
  if (node.tagName !== "BUTTON") {
    node.addEventListener("keydown", (event) => {
      const e = event as KeyboardEvent;
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault(); // Space would scroll the page
      toggle(picked, row, key);
    });
  }
  // The clicked element was replaced by the new result: focus goes to the one for the same value.
  const active = document.activeElement;
  if (key === refocus && (!active || active === document.body)) (node as HTMLElement).focus();
}

function markClickable(): void {
  const result = page.result;
  const query = result?.query;
  if (!result || page.problem || !query || !("group_by" in query)) return;
  // A bucketed group (a month) is a range, not one value an `eq` filter could match.
  const groups = query.group_by.filter((g) => !g.bucket).map((g) => g.column);
  if (groups.length === 0) return;
  const { rows, columns } = result.answer;
  const x = result.chart.x;
  const type = result.chart.type;
  const svg = document.querySelector("#rb-chart-area svg");
  if (svg && x && groups.indexOf(x) >= 0 && (type === "bar" || (type === "pie" && rows.length <= PIE_SLICES))) {
    svg.setAttribute("role", "group");
    for (const mark of svg.querySelectorAll('[ecmeta_ssr_type="chart"][ecmeta_data_index]')) {
      const i = Number(mark.getAttribute("ecmeta_data_index"));
      const row = rows[rows.length <= CHART_POINTS ? i : Math.floor((i * rows.length) / CHART_POINTS)];
      if (!row) continue;
      mark.setAttribute("tabindex", "0");
      mark.setAttribute("role", "button");
      mark.setAttribute("class", `${mark.getAttribute("class") || ""} pick`);
      clickable(
        mark,
        [{ column: x, value: row[x] ?? null }],
        row,
        `bar ${mark.getAttribute("ecmeta_series_index")} ${JSON.stringify(row[x] ?? null)}`,
      );
    }
  }
  // Each row's first group cell becomes a button (Tab, Enter, Space); a click anywhere on the row does the same.
  const cell = columns.findIndex((c) => c.name === groups[0]);
  document.querySelectorAll("#rb-table-area tbody tr").forEach((tr, i) => {
    const row = rows[i];
    const td = tr.children[cell];
    if (!row || !td) return;
    const picked = groups.map((column) => ({ column, value: row[column] ?? null }));
    const button = el("button", { type: "button", class: "pick", text: td.textContent || "(empty)" });
    td.textContent = "";
    td.appendChild(button);
    tr.classList.add("pickable");
    clickable(button, picked, row, `row ${JSON.stringify(picked)}`);
    tr.addEventListener("click", (e) => {
      if (e.target !== button) button.click();
    });
  });
}

/** Called once by the page's script: every result shown from now on is clickable. */
export function clickFilters(): void {
  whenResultShown(() => {
    markClickable();
    refocus = "";
  });
}
