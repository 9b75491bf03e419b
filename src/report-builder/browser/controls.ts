/** The controls (the form beside the result): rebuilt from the state after every change. */
import { button, byId, el, focusLast, select } from "./dom";
import { filterSection } from "./filters";
import { currentDataset, page } from "./page";
import { blankState, columnOf } from "./query";
import { run } from "./result";
import { changed, drawControlsWith, isChecked } from "./redraw";
import { savedSection } from "./saved";
import { aggregateAllowed, aggregates, buckets, charts, isDate, isNumber, typeName } from "./vocabulary";
import { t } from "./words";

/** Rebuilds the controls; focus goes back to the control that had it (ids are stable). */
export function renderControls(): void {
  const focused = document.activeElement?.id;
  const root = byId("rb-controls");
  root.textContent = "";
  root.appendChild(savedSection());
  root.appendChild(datasetSection());
  if (currentDataset()) {
    root.appendChild(modeSection());
    if (page.state.mode === "summary") {
      root.appendChild(groupSection());
      root.appendChild(valueSection());
    } else root.appendChild(columnsSection());
    root.appendChild(filterSection());
    root.appendChild(chartSection());
  }
  if (focused) document.getElementById(focused)?.focus();
}

/** A choice that changes the controls themselves: rebuild them, then run. */

function datasetSection(): HTMLElement {
  const options = page.datasets.map((d, i) => {
    const id = `rb-ds-${i}`;
    return el("div", { class: "choice" }, [
      el("input", {
        type: "radio",
        name: "rb-dataset",
        id,
        value: d.name,
        checked: d.name === page.state.dataset,
        onchange: () => pickDataset(d.name),
      }),
      el("label", { for: id }, [
        el("span", { class: "choice-name", text: d.display_name || d.name }),
        d.description ? el("span", { class: "choice-desc", text: d.description }) : null,
      ]),
    ]);
  });
  const dataset = currentDataset();
  const columns = dataset
    ? el("details", { class: "columns" }, [
        el("summary", { text: t("columns_of", { name: dataset.display_name || dataset.name, count: dataset.columns.length }) }),
        el(
          "ul",
          {},
          dataset.columns.map((c) =>
            el("li", {}, [el("span", { text: c.display_name }), el("span", { class: "type", text: typeName(c.type) })]),
          ),
        ),
      ])
    : null;
  return el("fieldset", { class: "group" }, [el("legend", { text: t("dataset") }), ...options, columns]);
}

function pickDataset(name: string): void {
  if (name === page.state.dataset) return;
  page.state = blankState(name);
  page.current = null;
  changed();
}

function modeSection(): HTMLElement {
  const modes = [
    ["summary", t("view_summary")],
    ["records", t("view_records")],
  ] as const;
  return el("fieldset", { class: "group" }, [
    el("legend", { text: t("view") }),
    ...modes.map(([mode, label]) => {
      const id = `rb-mode-${mode}`;
      const pick = () => {
        page.state.mode = mode;
        page.state.sort = [];
        changed();
      };
      return el("div", { class: "choice inline" }, [
        el("input", { type: "radio", name: "rb-mode", id, value: mode, checked: page.state.mode === mode, onchange: pick }),
        el("label", { for: id, text: label }),
      ]);
    }),
  ]);
}

function groupSection(): HTMLElement {
  const dataset = currentDataset();
  const groupable = (dataset?.columns ?? []).filter((c) => c.can_be_grouped);
  const rows = page.state.groups.map((g, i) => {
    const column = columnOf(dataset, g.column);
    return el("div", { class: "row" }, [
      select(
        `rb-g${i}-col`,
        t("group_by"),
        groupable.map((c) => [c.name, c.display_name]),
        g.column,
        (v) => {
          g.column = v;
          g.bucket = isDate(columnOf(dataset, v)?.type) ? g.bucket || "month" : undefined;
          changed();
        },
      ),
      column && isDate(column.type)
        ? select(`rb-g${i}-bucket`, t("by"), buckets(), g.bucket, (v) => {
            g.bucket = v;
            run();
          })
        : null,
      button(
        t("remove"),
        () => {
          page.state.groups.splice(i, 1);
          changed();
        },
        { class: "quiet", "aria-label": t("remove_group", { n: i + 1 }) },
      ),
    ]);
  });
  const add = groupable.length
    ? button(
        t("add_group"),
        () => {
          const used = page.state.groups.map((g) => g.column);
          const next = groupable.filter((c) => used.indexOf(c.name) < 0)[0] || groupable[0];
          page.state.groups.push({ column: next.name, bucket: isDate(next.type) ? "month" : undefined });
          changed();
          focusLast(`rb-g${page.state.groups.length - 1}-col`);
        },
        { id: "rb-add-group" },
      )
    : el("p", { class: "hint", text: t("no_groupable") });
  return el("fieldset", { class: "group" }, [el("legend", { text: t("groups") }), ...rows, add]);
}

function valueSection(): HTMLElement {
  const columnsOfDataset = currentDataset()?.columns ?? [];
  const rows = page.state.values.map((v, i) => {
    const columns = columnsOfDataset.filter((c) => aggregateAllowed(v.aggregate, c.type));
    return el("div", { class: "row" }, [
      select(`rb-v${i}-agg`, t("calculate"), aggregates(), v.aggregate, (a) => {
        v.aggregate = a;
        if (a === "count") v.column = "";
        else if (!v.column || !aggregateAllowed(a, columnsOfDataset.find((c) => c.name === v.column)?.type)) {
          const fit = columnsOfDataset.filter((c) => aggregateAllowed(a, c.type))[0];
          v.column = fit ? fit.name : "";
        }
        changed();
      }),
      v.aggregate === "count"
        ? null
        : select(
            `rb-v${i}-col`,
            t("of"),
            columns.map((c) => [c.name, c.display_name]),
            v.column,
            (c) => {
              v.column = c;
              run();
            },
          ),
      button(
        t("remove"),
        () => {
          page.state.values.splice(i, 1);
          changed();
        },
        { class: "quiet", "aria-label": t("remove_value", { n: i + 1 }) },
      ),
    ]);
  });
  const add = button(
    t("add_value"),
    () => {
      const numeric = columnsOfDataset.filter((c) => isNumber(c.type))[0];
      page.state.values.push(numeric ? { aggregate: "sum", column: numeric.name } : { aggregate: "count", column: "" });
      changed();
      focusLast(`rb-v${page.state.values.length - 1}-agg`);
    },
    { id: "rb-add-value" },
  );
  return el("fieldset", { class: "group" }, [el("legend", { text: t("values") }), ...rows, add]);
}

function columnsSection(): HTMLElement {
  const all = (currentDataset()?.columns ?? []).map((c) => c.name);
  const chosen = page.state.columns.length ? page.state.columns : all;
  return el("fieldset", { class: "group" }, [
    el("legend", { text: t("columns_to_list") }),
    ...(currentDataset()?.columns ?? []).map((c, i) => {
      const id = `rb-col-${i}`;
      const toggle = (e: Event) => {
        const next = all.filter((name) => (name === c.name ? isChecked(e) : chosen.indexOf(name) >= 0));
        if (next.length === 0) {
          (e.target as HTMLInputElement).checked = true;
          return;
        }
        page.state.columns = next;
        run();
      };
      return el("div", { class: "choice inline" }, [
        el("input", { type: "checkbox", id, checked: chosen.indexOf(c.name) >= 0, onchange: toggle }),
        el("label", { for: id, text: c.display_name }),
      ]);
    }),
  ]);
}

function chartSection(): HTMLElement {
  return el("fieldset", { class: "group" }, [
    el("legend", { text: t("chart") }),
    select("rb-chart", t("chart_type"), charts(), page.state.chart, (v) => {
      page.state.chart = v;
      run();
    }),
  ]);
}

// The sections drawn above (filters, saved reports) redraw the controls through ./redraw.ts.
drawControlsWith(renderControls);
