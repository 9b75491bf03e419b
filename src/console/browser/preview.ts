import { admin, AdminError } from "./api";
import { el, field, fill, input, newId, selectOf } from "./dom";
import type { Customer, EditorState } from "./state";
import { unsaved } from "./state";

// "Preview as a customer" (docs/console.md): a combobox finds customers of every access
// group by provided_id or name (GET /admin/customers/); the preview is that customer's own
// embed page for the edited definition (POST /admin/dashboard_previews/: their data source,
// computed properties, theme, locale and time zone unless chosen here), reloaded in its frame
// whenever the definition changes, without reloading the console.

const LOCALES = ["en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "ja-JP", "ar-EG"];
const TIME_ZONES = ["UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "Australia/Sydney"];

interface PreviewAnswer {
  preview_url: string;
  view: { theme: string | null; locale: string; timezone: string };
  themes: string[];
}

export interface Preview {
  element: HTMLElement;
  /** The definition changed: draw it again (debounced). */
  follow(): void;
  /** The embed code's customer, when one is chosen. */
  customer(): Customer | null;
}

function combobox(onChoose: (customer: Customer) => void): HTMLElement {
  const listId = newId("customers");
  const box = input({
    role: "combobox",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": listId,
    autocomplete: "off",
    placeholder: "provided_id or name",
  });
  const list = el("ul", { role: "listbox", id: listId, "aria-label": "Customers", hidden: true });
  let found: Customer[] = [];
  let active = -1;
  let timer: number | undefined;
  let asked = 0;
  const close = () => {
    list.hidden = true;
    box.setAttribute("aria-expanded", "false");
    box.removeAttribute("aria-activedescendant");
  };
  const choose = (customer: Customer) => {
    box.value = `${customer.name} (${customer.provided_id})`;
    close();
    onChoose(customer);
  };
  const draw = () => {
    fill(
      list,
      ...found.map((customer, index) => {
        const option = el("li", {
          role: "option",
          id: `${listId}-${index}`,
          "aria-selected": String(index === active),
          text: `${customer.name} (${customer.provided_id})${customer.access_group ? ` · ${customer.access_group}` : ""}`,
        });
        option.addEventListener("mousedown", (event) => {
          event.preventDefault();
          choose(customer);
        });
        return option;
      }),
    );
    list.hidden = found.length === 0;
    box.setAttribute("aria-expanded", String(found.length > 0));
    if (active >= 0) box.setAttribute("aria-activedescendant", `${listId}-${active}`);
    else box.removeAttribute("aria-activedescendant");
  };
  let pending: Promise<void> | null = null;
  const search = () => {
    pending = run();
    return pending;
  };
  const run = async () => {
    const mine = ++asked;
    const query = new URLSearchParams({ search: box.value.replace(/\s*\(.*$/, "").trim(), limit: "20" });
    const answer = await admin<{ customers: Customer[] }>("GET", `/admin/customers/?${query}`);
    if (mine !== asked) return;
    found = answer.customers;
    active = found.length > 0 ? 0 : -1;
    draw();
  };
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      timer = undefined;
      void search();
    }, 150);
  });
  box.addEventListener("focus", () => {
    if (found.length === 0) void search();
  });
  box.addEventListener("blur", () => window.setTimeout(close, 100));
  box.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden) return void search();
      active = Math.max(0, Math.min(found.length - 1, active + (event.key === "ArrowDown" ? 1 : -1)));
      draw();
    } else if (event.key === "Enter") {
      event.preventDefault();
      // Typed fast and Enter at once: the search for what was typed answers first, and an exact provided_id wins.
      const typed = box.value.trim();
      const pick = () => found.find((c) => c.provided_id === typed) ?? found[active];
      if (timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        void search().then(() => pick() && choose(pick() as Customer));
      } else void (pending ?? Promise.resolve()).then(() => pick() && choose(pick() as Customer));
    } else if (event.key === "Escape") close();
  });
  box.id = newId("customer");
  return el("div", { class: "field combobox" }, [el("label", { for: box.id, text: "Preview as customer" }), box, list]);
}

export function previewSection(state: EditorState): Preview {
  const status = el("p", { class: "preview-status", role: "status" });
  const frame = el("iframe", { class: "preview-frame", title: "Preview", hidden: true });
  const theme = selectOf([["", "The customer's"]], "");
  const locale = selectOf([["", "The customer's"]], "");
  const timezone = selectOf([["", "The customer's"]], "");
  const variables = el("div", { class: "row" });
  let timer: number | undefined;
  let asked = 0;
  let editedAt = 0;

  const optionsOf = (select: HTMLSelectElement, values: string[], computed: string | null) => {
    const chosen = select.value;
    const all = [...new Set([...(computed ? [computed] : []), ...values])];
    fill(
      select,
      el("option", { value: "", text: `The customer's${computed ? ` (${computed})` : ""}` }),
      ...all.map((v) => el("option", { value: v, text: v })),
    );
    select.value = all.includes(chosen) ? chosen : "";
  };

  const drawVariables = () => {
    fill(
      variables,
      ...(state.definition.variables ?? []).map((variable) => {
        const name = String(variable.name ?? "");
        const control = input({
          value: state.variables[name] ?? "",
          placeholder: variable.default === undefined ? "" : String(variable.default),
        });
        control.addEventListener("change", () => {
          if (control.value === "") delete state.variables[name];
          else state.variables[name] = control.value;
          follow();
        });
        return field(String(variable.label ?? name), control);
      }),
    );
  };

  const describe = () => {
    const who = state.customer;
    if (!who) {
      status.textContent = "Choose a customer to preview the dashboard as they would see it.";
      return;
    }
    status.textContent = `Previewing as ${who.name} (${who.provided_id})${unsaved(state) ? " · unsaved changes" : ` · version ${state.savedVersion}`}`;
  };

  const draw = async () => {
    const who = state.customer;
    describe();
    if (!who) return;
    const mine = ++asked;
    try {
      const answer = await admin<PreviewAnswer & { success: 1 }>("POST", "/admin/dashboard_previews/", {
        provided_id: who.provided_id,
        embed_id: state.embedId,
        name: state.name,
        definition: state.definition,
        expires_in: 3600,
        ...(state.presentation.theme ? { theme: state.presentation.theme } : {}),
        ...(state.presentation.locale ? { locale: state.presentation.locale } : {}),
        ...(state.presentation.timezone ? { timezone: state.presentation.timezone } : {}),
      });
      if (mine !== asked) return;
      optionsOf(theme, answer.themes, answer.view.theme);
      optionsOf(locale, LOCALES, answer.view.locale);
      optionsOf(timezone, TIME_ZONES, answer.view.timezone);
      const url = new URL(answer.preview_url, location.href);
      for (const [name, value] of Object.entries(state.variables)) url.searchParams.set(`var_${name}`, value);
      frame.hidden = false;
      frame.src = url.pathname + url.search;
    } catch (error) {
      if (mine !== asked) return;
      status.textContent = `${status.textContent} · the preview waits for a valid definition: ${error instanceof AdminError ? error.message : String(error)}`;
    }
  };

  frame.addEventListener("load", () => {
    if (editedAt > 0) frame.dataset.followedMs = String(Math.round(performance.now() - editedAt));
    frame.dataset.loadedAt = String(Date.now());
  });

  const follow = () => {
    editedAt = performance.now();
    describe();
    clearTimeout(timer);
    timer = window.setTimeout(() => void draw(), 120);
  };

  for (const [select, key] of [
    [theme, "theme"],
    [locale, "locale"],
    [timezone, "timezone"],
  ] as const) {
    select.addEventListener("change", () => {
      state.presentation[key] = select.value || undefined;
      follow();
    });
  }

  const chooser = combobox((customer) => {
    state.customer = customer;
    state.presentation = {};
    for (const select of [theme, locale, timezone]) select.value = "";
    follow();
  });
  drawVariables();
  describe();
  const element = el("section", { class: "card", "aria-label": "Preview" }, [
    el("h2", { text: "Preview" }),
    chooser,
    el("div", { class: "row" }, [field("Theme", theme), field("Locale", locale), field("Time zone", timezone)]),
    variables,
    status,
    frame,
  ]);
  return {
    element,
    follow: () => {
      drawVariables();
      follow();
    },
    customer: () => state.customer,
  };
}
