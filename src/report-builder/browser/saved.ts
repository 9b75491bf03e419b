/** The blueprint's saved reports: listed, opened, saved, renamed and deleted from the controls' first section. */
import { t } from "./words";
import { api, explain } from "./api";
import { changed, renderControls } from "./redraw";
import { type Child, button, el, focusLast } from "./dom";
import { loadDistinct } from "./filters";
import { currentDataset, datasetByName, page, type SavedQuery, type SavedReport } from "./page";
import { post, ready } from "./parent";
import { blankState, buildQuery, chartFor, columnOf } from "./query";
import { renderResult, run } from "./result";

/** Why a saved report cannot be shown any more (its dataset or a column is gone), or null. */
function brokenReason(report: SavedReport): string | null {
  const q = report.query;
  const dataset = datasetByName(q?.dataset);
  if (!dataset) return t("dataset_gone", { name: String(q?.dataset) });
  let missing: string | null = null;
  const check = (name: string | undefined, groupable?: boolean) => {
    if (missing || name === undefined) return;
    const c = columnOf(dataset, name);
    if (!c) missing = t("column_gone", { name, dataset: dataset.display_name || dataset.name });
    else if (groupable && !c.can_be_grouped) missing = t("column_not_groupable", { name: c.display_name });
  };
  for (const g of q?.group_by ?? []) check(g.column, true);
  for (const v of q?.values ?? []) check(v.column);
  for (const c of q?.columns ?? []) check(c);
  for (const f of q?.filters ?? []) check(f.column);
  return missing;
}

export function savedSection(): HTMLElement {
  const children: Child[] = [el("legend", { text: t("saved_reports") })];
  if (page.notice) children.push(el("p", { class: "notice", role: "status", text: page.notice }));
  if (page.reports === null) children.push(el("p", { class: "hint", text: t("reports_failed") }));
  else if (page.reports.length === 0) children.push(el("p", { class: "hint", text: t("no_reports") }));
  else children.push(el("ul", { class: "reports" }, page.reports.map(savedItem)));
  if (page.canSave) {
    const current = page.current;
    children.push(
      el("div", { class: "row save" }, [
        el("div", { class: "field grow" }, [
          el("label", { for: "rb-name", text: t("report_name") }),
          el("input", {
            id: "rb-name",
            type: "text",
            maxlength: 200,
            value: page.state.name || (current ? current.name : ""),
            oninput: (e: Event) => {
              page.state.name = (e.target as HTMLInputElement).value;
            },
          }),
        ]),
        current ? button(t("save_changes"), () => save(false), { id: "rb-save-changes" }) : null,
        button(current ? t("save_as_new") : t("save_report"), () => save(true), { id: "rb-save", class: "primary" }),
      ]),
    );
  }
  return el("fieldset", { class: "group saved" }, children);
}

function savedItem(report: SavedReport): HTMLElement {
  const reason = brokenReason(report);
  const { current, editing } = page;
  const label = el("span", { class: "report-name" }, [
    el("span", { text: report.name }),
    current && current.id === report.id ? el("span", { class: "badge", text: t("badge_open") }) : null,
    reason ? el("span", { class: "badge broken", text: t("badge_broken") }) : null,
  ]);
  const parts: Child[] = [label];
  if (reason) parts.push(el("span", { class: "reason", text: reason }));
  const stopEditing = () => {
    page.editing = null;
    renderControls();
  };
  if (editing && editing.id === report.id && editing.kind === "rename") {
    const inputId = `rb-rename-${report.id}`;
    parts.push(
      el("div", { class: "row" }, [
        el("div", { class: "field grow" }, [
          el("label", { for: inputId, text: t("new_name") }),
          el("input", { id: inputId, type: "text", maxlength: 200, value: report.name }),
        ]),
        button(t("save_name"), () => rename(report, (document.getElementById(inputId) as HTMLInputElement).value), {
          class: "primary",
          id: "rb-rename-ok",
        }),
        button(t("cancel"), stopEditing),
      ]),
    );
  } else if (editing && editing.id === report.id && editing.kind === "delete") {
    parts.push(
      el("div", { class: "confirm", role: "alert" }, [
        el("span", { text: t("delete_ask", { name: report.name }) }),
        button(t("delete"), () => remove(report), { class: "danger", id: "rb-delete-ok" }),
        button(t("cancel"), stopEditing, { id: "rb-delete-cancel" }),
      ]),
    );
  } else {
    const actions = [button(t("open"), () => openReport(report), { "aria-label": t("open_name", { name: report.name }) })];
    if (page.canSave) {
      const startEditing = (kind: "rename" | "delete", focus: string) => () => {
        page.editing = { id: report.id, kind };
        renderControls();
        focusLast(focus);
      };
      actions.push(
        button(t("rename"), startEditing("rename", `rb-rename-${report.id}`), {
          class: "quiet",
          "aria-label": t("rename_name", { name: report.name }),
        }),
      );
      actions.push(
        button(t("delete"), startEditing("delete", "rb-delete-cancel"), {
          class: "quiet",
          "aria-label": t("delete_name", { name: report.name }),
        }),
      );
    }
    parts.push(el("div", { class: "actions" }, actions));
  }
  return el("li", { class: reason ? "broken" : "" }, parts);
}

export function loadReports(): Promise<void> {
  return api<{ reports?: SavedReport[] }>("GET", "/reports").then(
    (answer) => {
      page.reports = answer.reports || [];
    },
    () => {
      page.reports = null;
    },
  );
}

/** Puts a saved report's query into the controls and runs it; a broken one says what is missing. */
export function openReport(report: SavedReport): void {
  const q: Partial<SavedQuery> = report.query ?? {};
  page.current = report;
  page.editing = null;
  page.notice = "";
  const state = blankState(q.dataset ?? "");
  page.state = state;
  state.name = report.name;
  if (q.columns) {
    state.mode = "records";
    state.columns = q.columns.slice();
  } else {
    state.groups = (q.group_by || []).map((g) => ({ column: g.column, bucket: g.bucket }));
    state.values = (q.values || []).map((v) => ({ aggregate: v.aggregate, column: v.column || "" }));
  }
  state.filters = (q.filters || []).map((f) => {
    const values = (f.values || []).map(String);
    if (f.op === "in" || f.op === "not_in") {
      const c = columnOf(datasetByName(q.dataset), f.column);
      if (c) loadDistinct(c);
    }
    return { column: f.column, op: f.op, value: f.value === undefined ? "" : String(f.value), values };
  });
  state.sort = (q.sort || []).slice();
  state.chart = report.chart?.type ? report.chart.type : "auto";
  const reason = brokenReason(report);
  if (reason || !datasetByName(q.dataset)) {
    renderControls();
    page.result = null;
    page.problem = { text: t("cannot_show", { reason: reason || t("its_dataset_gone") }) };
    // Still ask the service: it names the first thing that is missing.
    if (datasetByName(q.dataset)) run();
    else {
      renderResult();
      ready();
    }
    return;
  }
  changed();
}

function save(asNew: boolean): void {
  const nameInput = document.getElementById("rb-name") as HTMLInputElement | null;
  const name = (nameInput ? nameInput.value : "").trim();
  if (!name) {
    page.notice = t("name_to_save");
    renderControls();
    focusLast("rb-name");
    return;
  }
  const query = buildQuery(page.state, currentDataset());
  const payload = { name, query, chart: chartFor(query, page.state.chart).chart };
  const current = page.current;
  const request =
    asNew || !current
      ? api<{ report: SavedReport }>("POST", "/reports", payload)
      : api<{ report: SavedReport }>("POST", `/reports/${encodeURIComponent(current.id)}`, payload);
  request
    .then(
      (answer) => {
        const saved = answer.report;
        page.current = saved;
        page.state.name = saved.name;
        page.notice = t("saved", { name: saved.name });
        post({ type: "saved", id: saved.id, name: saved.name });
        return loadReports();
      },
      (error) => {
        page.notice = explain(error);
      },
    )
    .then(renderControls);
}

function rename(report: SavedReport, newName: string): void {
  const name = (newName || "").trim();
  if (!name) {
    page.notice = t("needs_name");
    renderControls();
    return;
  }
  api<{ report: SavedReport }>("POST", `/reports/${encodeURIComponent(report.id)}`, { name })
    .then(
      (answer) => {
        page.editing = null;
        page.notice = t("renamed", { name: answer.report.name });
        if (page.current && page.current.id === report.id) {
          page.current = answer.report;
          page.state.name = answer.report.name;
        }
        return loadReports();
      },
      (error) => {
        page.notice = explain(error);
      },
    )
    .then(renderControls);
}

function remove(report: SavedReport): void {
  api("DELETE", `/reports/${encodeURIComponent(report.id)}`)
    .then(
      () => {
        page.editing = null;
        page.notice = t("deleted", { name: report.name });
        if (page.current && page.current.id === report.id) {
          page.current = null;
          page.state.name = "";
        }
        return loadReports();
      },
      (error) => {
        page.notice = explain(error);
      },
    )
    .then(renderControls);
}
