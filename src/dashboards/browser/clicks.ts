/**
 * The live embed page's clicks (docs/embedding.md "Clicks"; the data it reads is written by
 * src/dashboards/clicks.ts into `#dashboard-clicks`). Bars, points and slices are found in
 * the server's SVG by the metadata ECharts' server-side renderer writes on them
 * (`ecmeta_data_index`): no chart library here. Each clickable mark gets a pointer, Tab
 * (tabindex 0), Enter and Space; a click posts `{source: "dashboard-embed", type: "click",
 * panel_id, column, value, row}` to the parent first, then:
 * - `filter` shows the page with the variable set (the value already set: back to its
 *   default); a variable the token locks is never changed (the click only posts);
 * - `open` goes to the service's `/embed/<id>/open/<panel>`, which mints the target's token;
 * - `emit` does nothing more.
 * On load the page posts its unlocked variables (`type: "variables"`), so `<dashboard-embed>`
 * can tell its host when they changed.
 */
import { fromHost, postToHost } from "../../http/browser/host-origins";
import { pageDashboard, tokenFitsPage } from "../../http/browser/token-dashboard";
import type { ClickRow, ClickState, PanelClicks } from "../../view/click-data";

/** A row behind a mark; the page's click data is declared once, for the server and this script (src/view/click-data.ts). */
type Row = ClickRow;

const SOURCE = "dashboard-embed";
const framed = window.parent !== window;
const here = new URL(window.location.href);
/** The page's credential: a fresh token from `<dashboard-embed>` replaces it (as the frame script does for links). */
let token = here.searchParams.get("token");

function post(message: Record<string, unknown>): void {
  // To the page's host only (its frame-ancestors): the rows clicked are the customer's data.
  if (framed) postToHost({ source: SOURCE, ...message });
}

/** A value as a `var_` parameter carries it (objects as JSON). */
function asParameter(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

function isSelected(state: ClickState, panel: PanelClicks, row: Row): boolean {
  if (panel.action !== "filter" || !panel.variable || panel.column === null) return false;
  const current = state.variables[panel.variable];
  const value = row[panel.column];
  return current !== null && current !== undefined && value !== null && value !== undefined && asParameter(current) === asParameter(value);
}

/** The page's own URL with its current credential (and the parameters it was opened with). */
function pageUrl(): URL {
  const url = new URL(here.toString());
  if (token) url.searchParams.set("token", token);
  return url;
}

function activate(state: ClickState, id: string, panel: PanelClicks, row: Row): void {
  const value = panel.column === null ? null : (row[panel.column] ?? null);
  // The host hears of every click, before any navigation.
  post({ type: "click", panel_id: id, column: panel.column, value, row });
  if (panel.action === "filter" && panel.variable && state.locked.indexOf(panel.variable) < 0) {
    const url = pageUrl();
    const name = `var_${panel.variable}`;
    if (isSelected(state, panel, row) || value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, asParameter(value));
    window.location.assign(url.toString());
  } else if (panel.action === "open" && panel.dashboard) {
    const url = new URL(`${state.path}/open/${encodeURIComponent(id)}`, window.location.href);
    for (const name of ["token", "customer_token", "environment", "width", "home"]) {
      const kept = name === "token" ? token : here.searchParams.get(name);
      if (kept) url.searchParams.set(name, kept);
    }
    url.searchParams.set("dashboard", panel.dashboard);
    const picked: Row = {};
    for (const column of Object.values(panel.targets ?? {})) picked[column] = row[column] ?? null;
    url.searchParams.set("row", JSON.stringify(picked));
    window.location.assign(url.toString());
  }
}

/** The action of a mark in the page's language (the server's words, with a `{what}` slot: docs/accessibility.md). */
function wordingOf(state: ClickState, panel: PanelClicks): string {
  return panel.action === "filter" ? state.words.filter : panel.action === "open" ? state.words.open : state.words.select;
}

/** Text only a screen reader reads (CLICK_STYLE's `.cd-sr`). */
function unseen(text: string): HTMLElement {
  const span = document.createElement("span");
  span.className = "cd-sr";
  span.textContent = text;
  return span;
}

/**
 * Names a mark in the page's language. A bar or a slice is named by its column and value. A
 * mark with text of its own (a table row, a KPI) keeps that text as its name, the action's
 * words around it for a screen reader only: what a viewer sees is what the name says (WCAG 2.5.3).
 */
function name(state: ClickState, panel: PanelClicks, row: Row, mark: Element): void {
  const [before, after = ""] = wordingOf(state, panel).split("{what}");
  if (mark.tagName === "path") {
    const what = panel.column === null ? "" : `${panel.column} ${asParameter(row[panel.column] ?? "")}`;
    mark.setAttribute("aria-label", `${before}${what}${after}`.trim());
    return;
  }
  const first = mark.tagName === "TR" ? mark.firstElementChild : mark;
  const last = mark.tagName === "TR" ? mark.lastElementChild : mark;
  if (before.trim()) first?.prepend(unseen(before));
  if (after.trim()) last?.append(unseen(after));
}

function makeClickable(state: ClickState, id: string, panel: PanelClicks, mark: Element, row: Row): void {
  mark.setAttribute("tabindex", "0");
  mark.setAttribute("role", "button");
  mark.setAttribute("data-pick", "");
  name(state, panel, row, mark);
  if (panel.action === "filter") mark.setAttribute("aria-pressed", String(isSelected(state, panel, row)));
  mark.addEventListener("click", () => activate(state, id, panel, row));
  mark.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key !== "Enter" && key !== " ") return;
    event.preventDefault(); // Space would scroll the page
    activate(state, id, panel, row);
  });
}

function start(): void {
  const data = document.getElementById("dashboard-clicks");
  if (!data) return;
  const state: ClickState = JSON.parse(data.textContent || "{}");
  for (const section of document.querySelectorAll("section[data-click]")) {
    const id = section.getAttribute("data-panel-id") || "";
    const panel = state.panels[id];
    if (!panel) continue;
    const marks: [Element, number][] = [];
    for (const mark of section.querySelectorAll('svg path[ecmeta_ssr_type="chart"][ecmeta_data_index]'))
      marks.push([mark, Number(mark.getAttribute("ecmeta_data_index"))]);
    section.querySelectorAll("tbody tr").forEach((tr, i) => {
      marks.push([tr, i]);
    });
    const kpi = section.querySelector(".kpi-value");
    if (kpi) marks.push([kpi, 0]);
    let picking = false;
    for (const [mark, index] of marks) {
      const row = panel.rows[index];
      if (!row) continue; // a pie's "Other" slice is no one row
      makeClickable(state, id, panel, mark, row);
      picking = picking || isSelected(state, panel, row);
    }
    if (picking) section.classList.add("picking");
    // An image's parts are not announced, nor reached: a chart whose marks are buttons is a group of them, named as the image was.
    if (marks.length > 0) for (const svg of section.querySelectorAll("svg.chart[role=img]")) svg.setAttribute("role", "group");
  }
  window.addEventListener("message", (event) => {
    const message = event.data;
    if (!fromHost(event) || !message || message.source !== SOURCE || message.type !== "token") return;
    if (typeof message.token === "string" && tokenFitsPage(message.token)) token = message.token;
  });
  post({ type: "variables", dashboard: pageDashboard(), variables: state.variables });
}

start();
