import { admin, AdminError } from "./api";
import { checkAllSection } from "./check-all";
import { button, el, fill } from "./dom";
import { layoutGrid } from "./layout-grid";
import { type FormHooks, jsonTab, panelForm, panelsList, translationsField, variablesForm } from "./panel-form";
import { previewSection } from "./preview";
import { clone, type Definition, type EditorState, emptyDefinition, type Problem, shownPath } from "./state";
import { versionsSection } from "./versions";

// One dashboard's editor (docs/console.md). Every edit changes the working definition,
// which is then checked by the API's own validation (POST /admin/dashboard_checks/: its problems
// are shown beside their fields, by path) and drawn again in the preview as the chosen customer.

const CHECK_DELAY_MS = 200;

interface Stored {
  dashboard: { name: string };
  version: { version_number: number; definition: Definition };
}

async function load(embedId: string): Promise<{ name: string; definition: Definition | null; version: number | null }> {
  try {
    const stored = await admin<Stored & { success: 1 }>("GET", `/admin/dashboard_versions/?embed_id=${encodeURIComponent(embedId)}`);
    return { name: stored.dashboard.name, definition: stored.version.definition, version: stored.version.version_number };
  } catch (error) {
    if (!(error instanceof AdminError) || error.failure.code !== "no_dashboard_version") throw error;
    const { dashboards } = await admin<{ dashboards: { embed_id: string; name: string }[] }>("GET", "/admin/dashboards/");
    return { name: dashboards.find((d) => d.embed_id === embedId)?.name ?? embedId, definition: null, version: null };
  }
}

export async function showEditor(main: HTMLElement, embedId: string): Promise<void> {
  fill(main, el("p", { text: "Loading…" }));
  let loaded: Awaited<ReturnType<typeof load>>;
  try {
    loaded = await load(embedId);
  } catch (error) {
    fill(
      main,
      el("p", { class: "error", role: "alert", text: error instanceof Error ? error.message : String(error) }),
      el("a", { href: "#", text: "All dashboards" }),
    );
    return;
  }
  const { schemas } = await admin<{ schemas: { id: number; name: string }[] }>("GET", "/admin/schemas/").catch(() => ({ schemas: [] }));
  const state: EditorState = {
    embedId,
    name: loaded.name,
    definition: loaded.definition ? clone(loaded.definition) : emptyDefinition(loaded.name),
    saved: loaded.definition,
    savedVersion: loaded.version,
    selected: 0,
    problems: [],
    customer: null,
    presentation: {},
    variables: {},
    checks: new Map(),
  };

  const listSlot = el("div");
  const formSlot = el("div");
  const variablesSlot = el("div");
  const translationsSlot = el("div");
  const gridSlot = el("div");
  const jsonSlot = el("div", { hidden: true, role: "tabpanel", id: "tab-json", "aria-labelledby": "tab-json-button" });
  const formPanel = el("div", { role: "tabpanel", id: "tab-form", "aria-labelledby": "tab-form-button" }, [
    listSlot,
    formSlot,
    variablesSlot,
    translationsSlot,
  ]);
  const others = el("ul", { "aria-label": "Definition problems", class: "error" });

  let checkTimer: number | undefined;
  let checking = 0;
  const check = async () => {
    const mine = ++checking;
    try {
      const answer = await admin<{ problems: Problem[] }>("POST", "/admin/dashboard_checks/", {
        embed_id: embedId,
        name: state.name,
        definition: state.definition,
      });
      if (mine !== checking) return;
      state.problems = answer.problems;
    } catch (error) {
      if (mine !== checking) return;
      state.problems = [{ field: "", panel_index: null, panel_id: null, message: error instanceof Error ? error.message : String(error) }];
    }
    showProblems();
  };

  /** Each problem beside the field of its path (`panels.3.sql`), the rest in the list below the form. */
  const showProblems = () => {
    const fields = [...main.querySelectorAll<HTMLElement>(".error[data-path]")];
    const placed = new Set<Problem>();
    for (const slot of fields) {
      const path = slot.dataset.path ?? "";
      const mine = state.problems.filter((p) => path !== "" && shownPath(p.field) === path);
      for (const p of mine) placed.add(p);
      slot.textContent = mine.map((p) => `${shownPath(p.field)}: ${p.message}`).join(" ");
      const control = slot.parentElement?.querySelector("input,select,textarea");
      if (control) control.toggleAttribute("aria-invalid", mine.length > 0);
    }
    fill(
      others,
      ...state.problems
        .filter((p) => !placed.has(p))
        .map((p) => el("li", { text: `${shownPath(p.field) || "the definition"}: ${p.message}` })),
    );
    versions.saveButton.disabled = state.problems.length > 0;
  };

  const drawGrid = () =>
    fill(
      gridSlot,
      layoutGrid(state.definition.panels, state.selected, {
        changed: () => changed(false, "grid"),
        select: (index) => {
          state.selected = index;
          drawForms();
        },
      }),
    );

  const hooks: FormHooks = {
    changed: (redraw) => changed(redraw, "form"),
    select: (index) => {
      state.selected = index;
      drawForms();
      drawGrid();
      (listSlot.querySelector("[role=listbox]") as HTMLElement | null)?.focus();
    },
  };
  const drawForms = () => {
    fill(listSlot, panelsList(state, hooks));
    fill(formSlot, panelForm(state, schemas, hooks));
    fill(variablesSlot, variablesForm(state, hooks));
    fill(translationsSlot, translationsField(state, hooks));
    showProblems();
  };
  const drawJson = () => fill(jsonSlot, jsonTab(state, { changed: () => changed(false, "json"), select: hooks.select }));

  function changed(redraw: boolean, from: "form" | "grid" | "json"): void {
    if (redraw || from === "json" || from === "grid") drawForms();
    else {
      // Only the names in the list follow a typed title; the field being typed in stays as it is.
      const items = listSlot.querySelectorAll("[role=option]");
      state.definition.panels.forEach((p, i) => {
        if (items[i]) items[i].textContent = p.title?.trim() || p.id;
      });
    }
    if (from !== "grid") drawGrid();
    if (from !== "json") drawJson();
    clearTimeout(checkTimer);
    checkTimer = window.setTimeout(() => void check(), CHECK_DELAY_MS);
    preview.follow();
  }

  const preview = previewSection(state);
  const versions = versionsSection(state, {
    saved: () => {
      showProblems();
      preview.follow();
    },
    customer: preview.customer,
  }) as ReturnType<typeof versionsSection> & {
    saveButton: HTMLButtonElement;
  };
  preview.element.insertBefore(gridSlot, preview.element.querySelector(".preview-status"));

  const tab = (id: string, text: string, panel: HTMLElement, selected: boolean) => {
    const b = button(
      text,
      () => {
        for (const t of tabs.querySelectorAll("[role=tab]")) {
          const on = t === b;
          t.setAttribute("aria-selected", String(on));
          t.setAttribute("tabindex", on ? "0" : "-1");
          (document.getElementById(t.getAttribute("aria-controls") ?? "") as HTMLElement).hidden = !on;
        }
        if (panel === jsonSlot) drawJson();
      },
      { role: "tab", id: `${id}-button`, "aria-controls": id, "aria-selected": String(selected), tabindex: selected ? 0 : -1 },
    );
    return b;
  };
  const tabs = el("div", { role: "tablist", "aria-label": "Edit as" });
  tabs.append(tab("tab-form", "Form", formPanel, true), tab("tab-json", "JSON", jsonSlot, false));
  tabs.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    const all = [...tabs.querySelectorAll<HTMLButtonElement>("[role=tab]")];
    const next = all[(all.indexOf(document.activeElement as HTMLButtonElement) + 1) % all.length];
    next.focus();
    next.click();
  });

  fill(
    main,
    el("p", {}, [el("a", { href: "#", text: "All dashboards" })]),
    el("h2", { text: `${state.name} (${embedId})` }),
    el("div", { class: "editor" }, [
      el("div", {}, [
        el("section", { class: "card", "aria-label": "Definition" }, [el("h2", { text: "Definition" }), tabs, formPanel, jsonSlot, others]),
      ]),
      el("div", {}, [preview.element, versions.element, checkAllSection(state, () => undefined)]),
    ]),
  );
  drawForms();
  drawGrid();
  drawJson();
  await versions.reload();
  void check();
}
