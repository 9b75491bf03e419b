/** The filters section of the controls: a row per filter, its input fitting the column's type and condition. */
import { datePattern, readDate, showDate } from "../../view/date-field";
import { locale, t } from "./words";
import { api } from "./api";
import { changed, isChecked, renderControls } from "./redraw";
import { type Child, button, el, fieldValue, focusLast, select } from "./dom";
import { currentDataset, page } from "./page";
import { type FilterChoice, columnOf } from "./query";
import { run, runSoon } from "./result";
import { type Column, isDate, isNumber, opLabel, opsFor } from "./vocabulary";

export function filterSection(): HTMLElement {
  const dataset = currentDataset();
  const columns = dataset?.columns ?? [];
  const rows = page.state.filters.map((f, i) => {
    const column = columnOf(dataset, f.column) || columns[0];
    const ops = opsFor(column.type);
    return el("div", { class: "row filter" }, [
      select(
        `rb-f${i}-col`,
        t("filter_on"),
        columns.map((c) => [c.name, c.display_name]),
        f.column,
        (v) => {
          page.state.filters[i] = newFilter(columnOf(dataset, v) || columns[0]);
          changed();
        },
      ),
      select(
        `rb-f${i}-op`,
        t("condition"),
        ops.map((op) => [op, opLabel(op, column.type)]),
        f.op,
        (op) => {
          const list = op === "in" || op === "not_in";
          const wasList = f.op === "in" || f.op === "not_in";
          if (list !== wasList || op === "between" || f.op === "between") {
            f.values = [];
            f.value = "";
          }
          f.op = op;
          if (list) loadDistinct(column);
          changed();
        },
      ),
      filterInput(f, column, i),
      button(
        t("remove"),
        () => {
          page.state.filters.splice(i, 1);
          changed();
        },
        { class: "quiet", "aria-label": t("remove_filter", { n: i + 1 }) },
      ),
    ]);
  });
  const locked = page.lockedFilters.filter((f) => f.dataset === page.state.dataset);
  const lockedNote = locked.length
    ? el("p", {
        class: "hint",
        text: t("always_applied", {
          filters: locked
            .map((f) => {
              const c = columnOf(dataset, f.column);
              const what = f.values ? ` ${f.values.join(", ")}` : f.value !== undefined ? ` ${f.value}` : "";
              return `${c ? c.display_name : f.column} ${opLabel(f.op, c ? c.type : "")}${what}`;
            })
            .join("; "),
        }),
      })
    : null;
  const add = button(
    t("add_filter"),
    () => {
      page.state.filters.push(newFilter(columns[0]));
      changed();
      focusLast(`rb-f${page.state.filters.length - 1}-col`);
    },
    { id: "rb-add-filter" },
  );
  return el("fieldset", { class: "group" }, [el("legend", { text: t("filters") }), lockedNote, ...rows, add]);
}

function newFilter(column: Column): FilterChoice {
  const op = opsFor(column.type)[0];
  if (op === "in") loadDistinct(column);
  return { column: column.name, op, value: column.type === "BOOLEAN" ? "true" : "", values: [] };
}

function filterInput(f: FilterChoice, column: Column, i: number): Child {
  const id = `rb-f${i}-value`;
  if (f.op === "is_null" || f.op === "is_not_null") return null;
  const kind = isNumber(column.type) ? "number" : "text";
  const input = (inputId: string, label: string, value: string, onvalue: (value: string) => void) =>
    isDate(column.type)
      ? dateInput(inputId, label, value, onvalue)
      : el("div", { class: "field" }, [
          el("label", { for: inputId, text: label }),
          el("input", {
            id: inputId,
            type: kind,
            step: column.type === "FLOAT" ? "any" : undefined,
            value,
            oninput: (e: Event) => {
              onvalue(fieldValue(e));
              runSoon();
            },
            onchange: (e: Event) => {
              onvalue(fieldValue(e));
              run();
            },
          }),
        ]);
  if (column.type === "BOOLEAN") {
    return select(
      id,
      t("value"),
      [
        ["true", t("yes")],
        ["false", t("no")],
      ],
      String(f.value),
      (v) => {
        f.value = v;
        run();
      },
    );
  }
  if (f.op === "between") {
    return el("div", { class: "pair" }, [
      input(id, t("from"), f.values[0] || "", (v) => {
        f.values[0] = v;
        f.values[1] = f.values[1] || "";
      }),
      input(`${id}-to`, t("to"), f.values[1] || "", (v) => {
        f.values[1] = v;
        f.values[0] = f.values[0] || "";
      }),
    ]);
  }
  if (f.op === "in" || f.op === "not_in") {
    const known = page.distinct[`${page.state.dataset}/${column.name}`];
    if (known === "loading" || known === undefined) return el("p", { class: "hint", id, text: t("loading_values") });
    if (known === "failed") return el("p", { class: "hint", id, text: t("values_failed") });
    const options = known.concat(f.values.filter((v) => known.indexOf(v) < 0));
    return el("fieldset", { class: "values", id }, [
      el("legend", { text: t("values") }),
      ...options.map((value, j) => {
        const boxId = `${id}-${j}`;
        const toggle = (e: Event) => {
          f.values = options.filter((o) => (o === value ? isChecked(e) : f.values.indexOf(o) >= 0));
          run();
        };
        return el("div", { class: "choice inline" }, [
          el("input", { type: "checkbox", id: boxId, checked: f.values.indexOf(value) >= 0, onchange: toggle }),
          el("label", { for: boxId, text: value === "" ? t("empty") : value }),
        ]);
      }),
    ]);
  }
  return input(id, t("value"), f.value, (v) => {
    f.value = v;
  });
}

/**
 * A date filter's field: shows the date in the view's format (src/view/date-field.ts), hands on the
 * ISO date read from it; what is no date yet is marked invalid and leaves the query as it was.
 */
function dateInput(inputId: string, label: string, value: string, onvalue: (value: string) => void): HTMLElement {
  const read = (e: Event, then: () => void) => {
    const field = e.target as HTMLInputElement;
    const iso = field.value.trim() === "" ? "" : readDate(field.value, locale);
    if (iso === null) {
      field.setAttribute("aria-invalid", "true");
      return;
    }
    field.removeAttribute("aria-invalid");
    onvalue(iso);
    then();
  };
  const pattern = datePattern(locale);
  return el("div", { class: "field" }, [
    el("label", { for: inputId, text: label }),
    el("input", {
      id: inputId,
      type: "text",
      class: "date",
      inputmode: "numeric",
      autocomplete: "off",
      placeholder: pattern,
      title: t("date_format", { pattern }),
      value: showDate(value, locale),
      oninput: (e: Event) => read(e, runSoon),
      onchange: (e: Event) => read(e, run),
    }),
  ]);
}

/** The values a text column holds (up to 100), for "is one of": one query, kept per column. */
export function loadDistinct(column: Column): void {
  const key = `${page.state.dataset}/${column.name}`;
  if (page.distinct[key] && page.distinct[key] !== "failed") return;
  page.distinct[key] = "loading";
  api<{ rows: Record<string, unknown>[] }>("POST", "/query", {
    dataset: page.state.dataset,
    group_by: [{ column: column.name }],
    values: [],
    limit: 100,
  })
    .then(
      (answer) => {
        page.distinct[key] = answer.rows
          .map((row) => row[column.name])
          .filter((v) => v !== null)
          .map(String);
      },
      () => {
        page.distinct[key] = "failed";
      },
    )
    .then(renderControls);
}
