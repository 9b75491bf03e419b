import { button, el, field, fill, input, selectOf } from "./dom";
import type { EditorState, Json, Panel } from "./state";

// The editor's forms (docs/console.md): the list "Panels" with Add/Delete/Move up/Move down,
// the selected panel's fields (which depend on its type), its "On click", the "Variables" and
// the translations. Every field carries the path the API names its problems by
// (`panels.3.sql`), so a problem is shown beside its field.

export const PANEL_TYPES = ["kpi", "table", "bar", "line", "area", "pie", "text"];
const CARTESIAN = new Set(["bar", "line", "area"]);

export interface FormHooks {
  /** The definition changed; `redraw`: the form's shape changed too (a type, a panel added). */
  changed(redraw: boolean): void;
  select(index: number): void;
}

function setOrDrop(target: Json, key: string, value: unknown): void {
  if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) delete target[key];
  else target[key] = value;
}

/** A text input bound to `target[key]`. */
function bound(
  label: string,
  target: Json,
  key: string,
  path: string,
  hooks: FormHooks,
  parse: (v: string) => unknown = (v) => v,
): HTMLElement {
  const value = target[key];
  const control = input({ value: Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value) });
  control.addEventListener("input", () => {
    setOrDrop(target, key, parse(control.value));
    hooks.changed(false);
  });
  return field(label, control, path);
}

/**
 * Deleting a panel or a variable deletes its translations too (keys starting with one of
 * `prefixes`): a translation of something that is gone is refused when saving.
 */
function dropTranslations(state: EditorState, prefixes: string[]): void {
  const translations = state.definition.translations;
  if (!translations) return;
  for (const [locale, texts] of Object.entries(translations)) {
    for (const key of Object.keys(texts)) if (prefixes.some((prefix) => key.startsWith(prefix))) delete texts[key];
    if (Object.keys(texts).length === 0) delete translations[locale];
  }
  if (Object.keys(translations).length === 0) delete state.definition.translations;
}

const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function panelsList(state: EditorState, hooks: FormHooks): HTMLElement {
  const panels = state.definition.panels;
  const box = el("ul", { class: "panels", role: "listbox", "aria-label": "Panels", tabindex: 0 });
  panels.forEach((panel, index) => {
    const item = el("li", {
      role: "option",
      id: `panel-option-${index}`,
      "aria-selected": String(index === state.selected),
      text: panel.title?.trim() || panel.id,
    });
    item.addEventListener("click", () => hooks.select(index));
    box.append(item);
  });
  box.setAttribute("aria-activedescendant", `panel-option-${state.selected}`);
  box.addEventListener("keydown", (event) => {
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(panels.length - 1, state.selected + step));
    if (next !== state.selected) hooks.select(next);
  });
  const move = (by: number) => () => {
    const to = state.selected + by;
    if (to < 0 || to >= panels.length) return;
    const [panel] = panels.splice(state.selected, 1);
    panels.splice(to, 0, panel);
    state.selected = to;
    hooks.changed(true);
  };
  const add = () => {
    const taken = new Set(panels.map((p) => p.id));
    let n = panels.length + 1;
    while (taken.has(`panel_${n}`)) n++;
    const bottom = panels.reduce((y, p) => Math.max(y, p.layout.y + p.layout.h), 0);
    panels.push({ id: `panel_${n}`, type: "text", title: `Panel ${n}`, text: "New panel", layout: { x: 0, y: bottom, w: 6, h: 3 } });
    state.selected = panels.length - 1;
    hooks.changed(true);
  };
  const remove = () => {
    if (panels.length === 0) return;
    const [gone] = panels.splice(state.selected, 1);
    dropTranslations(state, [`panels.${gone.id}.`]);
    state.selected = Math.max(0, Math.min(state.selected, panels.length - 1));
    hooks.changed(true);
  };
  return el("div", {}, [
    el("h3", { text: "Panels" }),
    box,
    el("div", { class: "toolbar" }, [
      button("Add panel", add),
      button("Delete panel", remove, { disabled: panels.length === 0 }),
      button("Move up", move(-1), { disabled: state.selected <= 0 }),
      button("Move down", move(1), { disabled: state.selected >= panels.length - 1 }),
    ]),
  ]);
}

export function panelForm(state: EditorState, schemas: { id: number; name: string }[], hooks: FormHooks): HTMLElement {
  const index = state.selected;
  const panel = state.definition.panels[index] as Panel | undefined;
  if (!panel) return el("p", { class: "note", text: "No panel yet: Add panel." });
  const path = (key: string) => `panels.${index}.${key}`;
  const type = selectOf(PANEL_TYPES, panel.type);
  type.addEventListener("change", () => {
    panel.type = type.value;
    hooks.changed(true);
  });
  const fields: (HTMLElement | null)[] = [bound("Title", panel, "title", path("title"), hooks), field("Type", type, path("type"))];
  if (panel.type !== "text") {
    const current = panel.schema_id === undefined ? "" : String(panel.schema_id);
    const options: [string, string][] = [
      ["", "Choose a schema"],
      ...schemas.map((s): [string, string] => [String(s.id), `${s.name} (${s.id})`]),
    ];
    if (current && !schemas.some((s) => String(s.id) === current)) options.push([current, `Schema ${current}`]);
    const schema = selectOf(options, current);
    schema.addEventListener("change", () => {
      setOrDrop(panel, "schema_id", schema.value === "" ? undefined : Number(schema.value));
      hooks.changed(false);
    });
    const sql = el("textarea", { rows: 5, spellcheck: "false" });
    sql.value = typeof panel.sql === "string" ? panel.sql : "";
    sql.addEventListener("input", () => {
      setOrDrop(panel, "sql", sql.value);
      hooks.changed(false);
    });
    fields.push(field("Schema", schema, path("schema_id")), field("SQL", sql, path("sql")));
  }
  if (CARTESIAN.has(panel.type)) {
    fields.push(
      bound("X column", panel, "x_column", path("x_column"), hooks),
      bound("Y columns", panel, "y_columns", path("y_columns"), hooks, list),
    );
  }
  if (panel.type === "pie") {
    fields.push(
      bound("Label column", panel, "label_column", path("label_column"), hooks),
      bound("Value column", panel, "value_column", path("value_column"), hooks),
    );
  }
  if (panel.type === "kpi") fields.push(bound("Value column", panel, "value_column", path("value_column"), hooks));
  if (panel.type !== "text" && panel.type !== "table") {
    const format = (panel.format as Json | undefined) ?? {};
    const style = selectOf(
      [["", "As the values come"], "number", "currency", "percent"],
      typeof format.style === "string" ? format.style : "",
    );
    style.addEventListener("change", () => {
      const next = { ...((panel.format as Json | undefined) ?? {}) };
      setOrDrop(next, "style", style.value || undefined);
      setOrDrop(panel, "format", Object.keys(next).length ? next : undefined);
      hooks.changed(false);
    });
    fields.push(field("Format", style, path("format.style")));
  }
  if (panel.type === "text") {
    const text = el("textarea", { rows: 4 });
    text.value = typeof panel.text === "string" ? panel.text : "";
    text.addEventListener("input", () => {
      setOrDrop(panel, "text", text.value);
      hooks.changed(false);
    });
    fields.push(field("Text", text, path("text")));
  }
  if (panel.type !== "text") fields.push(onClickSection(panel, path("on_click"), hooks));
  return el("form", { "aria-label": "Panel", onsubmit: (e: Event) => e.preventDefault() }, [
    el("h3", { text: `Panel ${panel.id}` }),
    ...fields,
  ]);
}

function onClickSection(panel: Panel, path: string, hooks: FormHooks): HTMLElement {
  const click = (panel.on_click as Json | undefined) ?? {};
  const action = selectOf([["", "Nothing"], "filter", "open", "emit"], typeof click.action === "string" ? click.action : "");
  const detail = el("div");
  const drawDetail = () => {
    const now = panel.on_click as Json | undefined;
    if (!now) return fill(detail);
    if (now.action === "filter")
      fill(detail, bound("Variable", now, "variable", `${path}.variable`, hooks), bound("Column", now, "column", `${path}.column`, hooks));
    else if (now.action === "open") {
      const variables = el("input", { type: "text", value: JSON.stringify(now.variables ?? {}) });
      variables.addEventListener("input", () => {
        try {
          now.variables = JSON.parse(variables.value || "{}");
          hooks.changed(false);
        } catch {
          /* finished typing later */
        }
      });
      fill(
        detail,
        bound("Dashboard", now, "dashboard", `${path}.dashboard`, hooks),
        field("Target variables (JSON)", variables, `${path}.variables`),
      );
    } else fill(detail);
  };
  action.addEventListener("change", () => {
    if (action.value === "") delete panel.on_click;
    else
      panel.on_click =
        action.value === "open"
          ? { action: "open", dashboard: "", variables: {} }
          : action.value === "filter"
            ? { action: "filter", variable: "" }
            : { action: "emit" };
    drawDetail();
    hooks.changed(false);
  });
  drawDetail();
  return el("fieldset", { role: "group", "aria-label": "On click" }, [
    el("legend", { text: "On click" }),
    field("Action", action, `${path}.action`),
    detail,
  ]);
}

export function variablesForm(state: EditorState, hooks: FormHooks): HTMLElement {
  state.definition.variables ??= [];
  const variables = state.definition.variables;
  const rows = variables.map((variable, index) => {
    const path = (key: string) => `variables.${index}.${key}`;
    const shownOptions = (variable.control as Json | undefined)?.options;
    const options = input({ value: Array.isArray(shownOptions) ? shownOptions.join(", ") : "" });
    options.addEventListener("input", () => {
      const values = list(options.value);
      const now = variable.control as Json | undefined;
      // Options make a select control; clearing them drops a select, and leaves a date or text control as it is.
      if (values.length > 0) variable.control = { ...(now ?? {}), type: "select", options: values };
      else if (now?.type === "select") delete variable.control;
      hooks.changed(false);
    });
    return el("fieldset", { role: "group", "aria-label": `Variable ${index + 1}` }, [
      el("legend", { text: `Variable ${index + 1}` }),
      el("div", { class: "row" }, [
        bound("Name", variable, "name", path("name"), hooks),
        bound("Default", variable, "default", path("default"), hooks),
        bound("Label", variable, "label", path("label"), hooks),
        field("Options", options, path("control.options")),
      ]),
      button(`Remove variable ${index + 1}`, () => {
        const [gone] = variables.splice(index, 1);
        dropTranslations(state, [`variables.${String(gone.name)}.`, `options.${String(gone.name)}.`]);
        hooks.changed(true);
      }),
    ]);
  });
  return el("form", { "aria-label": "Variables", onsubmit: (e: Event) => e.preventDefault() }, [
    el("h3", { text: "Variables" }),
    ...rows,
    button("Add variable", () => {
      variables.push({ name: `variable_${variables.length + 1}` });
      hooks.changed(true);
    }),
  ]);
}

export function translationsField(state: EditorState, hooks: FormHooks): HTMLElement {
  const text = el("textarea", { rows: 4, spellcheck: "false" });
  text.value = JSON.stringify(state.definition.translations ?? {}, null, 2);
  const error = el("p", { class: "error" });
  text.addEventListener("input", () => {
    try {
      const parsed = JSON.parse(text.value || "{}");
      if (Object.keys(parsed).length === 0) delete state.definition.translations;
      else state.definition.translations = parsed;
      error.textContent = "";
      hooks.changed(false);
    } catch (e) {
      error.textContent = `Not JSON yet: ${(e as Error).message}`;
    }
  });
  return el("div", {}, [field("Translations", text, "translations"), error]);
}

/** The tab "JSON": the whole definition, editable; it replaces the definition whenever it parses to an object with panels. */
export function jsonTab(state: EditorState, hooks: FormHooks): HTMLElement {
  const text = el("textarea", { rows: 24, spellcheck: "false" });
  text.value = JSON.stringify(state.definition, null, 2);
  const error = el("p", { class: "error", role: "status" });
  text.addEventListener("input", () => {
    try {
      const parsed = JSON.parse(text.value);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the definition is a JSON object");
      if (!Array.isArray(parsed.panels)) throw new Error("the definition needs panels");
      state.definition = parsed;
      state.selected = Math.min(state.selected, Math.max(0, parsed.panels.length - 1));
      error.textContent = "";
      hooks.changed(false);
    } catch (e) {
      error.textContent = `Not applied: ${(e as Error).message}`;
    }
  });
  return el("div", {}, [field("Definition", text, ""), error]);
}
