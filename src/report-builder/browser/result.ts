/**
 * Running the query and showing its result. Charts are not drawn here: `/view` answers the
 * result together with the server's chart markup (the dashboards' SVG), so each change is one
 * round trip, and a change made while one is in flight aborts it (AbortController).
 */
import { pluralCategory } from "../../view/fill";
import { locale, t } from "./words";
import { ApiProblem, api, explain } from "./api";
import { button, byId, el, formatValue } from "./dom";
import { currentDataset, page, type ViewAnswer } from "./page";
import { ready } from "./parent";
import { buildQuery, chartFor } from "./query";
import { isNumber } from "./vocabulary";

let debounce: ReturnType<typeof setTimeout> | undefined;
let shown: () => void = () => undefined;

/** Called once with what runs after each result is drawn (click-filter.ts: the bars and rows become clickable). */
export function whenResultShown(then: () => void): void {
  shown = then;
}

/** Runs after typing pauses. */
export function runSoon(): void {
  clearTimeout(debounce);
  debounce = setTimeout(run, 300);
}

export function run(): void {
  clearTimeout(debounce);
  if (page.inflight) page.inflight.abort();
  const dataset = currentDataset();
  if (!dataset) {
    page.result = null;
    page.problem = { text: page.datasets.length ? t("pick_dataset") : t("no_datasets") };
    page.busy = false;
    renderResult();
    ready();
    return;
  }
  const query = buildQuery(page.state, dataset);
  const picked = chartFor(query, page.state.chart);
  const controller = typeof AbortController === "function" ? new AbortController() : null;
  page.inflight = controller;
  const mine = ++page.generation;
  page.busy = true;
  renderStatus();
  const width = Math.max(240, Math.floor(byId("rb-chart-area").getBoundingClientRect().width));
  // With a saved report open, the service adds the locks it was saved under (its report_id).
  const report = page.current ? { report_id: page.current.id } : {};
  api<ViewAnswer>("POST", "/view", { query, chart: picked.chart, width, ...report }, { signal: controller ? controller.signal : undefined })
    .then(
      (answer) => {
        if (mine !== page.generation) return;
        page.result = { query, chart: picked.chart, note: picked.note, answer };
        page.problem = null;
      },
      (error) => {
        if (mine !== page.generation || (error && error.name === "AbortError")) return;
        page.problem = { text: explain(error), retry: true };
        if (error instanceof ApiProblem && error.status === 429 && error.retryAfter) {
          setTimeout(() => {
            if (mine === page.generation) run();
          }, error.retryAfter * 1000);
        }
      },
    )
    .then(() => {
      if (mine !== page.generation) return;
      page.inflight = null;
      page.busy = false;
      renderResult();
      ready();
    });
}

function renderStatus(): void {
  const status = byId("rb-status");
  byId("rb-result").setAttribute("aria-busy", page.busy ? "true" : "false");
  if (page.busy) {
    status.textContent = t("updating");
    return;
  }
  if (!page.result || page.problem) {
    status.textContent = "";
    return;
  }
  const a = page.result.answer;
  const n = a.row_count;
  // The boot words hold each count message's `other` form; `one_row` is the "one" of `rows`,
  // taken when Intl.PluralRules says so for the locale (French counts 0 as one).
  status.textContent = a.truncated
    ? t("showing_first", { count: n.toLocaleString(locale) }, n)
    : t(pluralCategory(locale, n) === "one" ? "one_row" : "rows", { count: n.toLocaleString(locale) }, n);
}

export function renderResult(): void {
  renderStatus();
  const chartArea = byId("rb-chart-area");
  const tableArea = byId("rb-table-area");
  const message = byId("rb-message");
  const { result, problem } = page;
  byId("rb-downloads").hidden = !result || !!problem;
  message.textContent = "";
  message.hidden = !problem;
  if (problem) {
    message.appendChild(el("p", { text: problem.text }));
    if (problem.retry) message.appendChild(button(t("try_again"), run));
    chartArea.textContent = "";
    tableArea.textContent = "";
    return;
  }
  if (!result) return;
  const a = result.answer;
  chartArea.textContent = "";
  if (result.note) chartArea.appendChild(el("p", { class: "hint", text: result.note }));
  if (result.chart.type !== "table" && a.chart_html) {
    const holder = el("div", { class: `chart-holder chart-${result.chart.type}` });
    holder.innerHTML = a.chart_html; // the service's renderer output (escaped there)
    chartArea.appendChild(holder);
  }
  tableArea.textContent = "";
  if (a.rows.length === 0) {
    tableArea.appendChild(el("p", { class: "empty", text: t("no_rows") }));
    return;
  }
  tableArea.appendChild(renderTable(a));
  shown();
}

function renderTable(a: ViewAnswer): HTMLElement {
  const sort = page.state.sort[0];
  const head = el(
    "tr",
    {},
    a.columns.map((c) => {
      const direction = sort && sort.column === c.name ? sort.direction : null;
      const numeric = isNumber(c.type);
      return el(
        "th",
        { scope: "col", class: numeric ? "num" : "", "aria-sort": direction ? (direction === "asc" ? "ascending" : "descending") : "none" },
        [
          button(
            c.display_name + (direction === "asc" ? " ▲" : direction === "desc" ? " ▼" : ""),
            () => {
              page.state.sort = [{ column: c.name, direction: direction === "asc" ? "desc" : "asc" }];
              run();
            },
            { class: "sort", id: `rb-sort-${c.name}`, title: t("sort_by", { name: c.display_name }) },
          ),
        ],
      );
    }),
  );
  const rows = a.rows.map((row) =>
    el(
      "tr",
      {},
      a.columns.map((c) => el("td", { class: isNumber(c.type) ? "num" : "", text: formatValue(row[c.name]) })),
    ),
  );
  return el("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": t("result_table") }, [
    el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)]),
  ]);
}

/** Downloads the current query's whole result as a CSV or XLSX file (`/export`). */
export function download(format: "csv" | "xlsx"): void {
  const query = buildQuery(page.state, currentDataset());
  const name = ((page.state.name || page.current?.name || page.state.dataset || "report").trim() || "report").replace(
    /[\\/:*?"<>|]+/g,
    "-",
  );
  const status = byId("rb-download-status");
  status.textContent = t("preparing", { format: format.toUpperCase() });
  api<Response>(
    "POST",
    "/export",
    { query, format, file_name: name, ...(page.current ? { report_id: page.current.id } : {}) },
    { raw: true },
  )
    .then((response) => response.blob())
    .then(
      (blob) => {
        const link = el("a", { href: URL.createObjectURL(blob), download: `${name}.${format}` });
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10000);
        status.textContent = t("downloaded", { file: `${name}.${format}` });
      },
      (error) => {
        status.textContent = explain(error);
      },
    );
}
