/** Small DOM helpers: the page is rebuilt from the state with these, no UI library (it would outweigh the code it replaces). */
import { locale, t } from "./words";
import type { Options } from "./vocabulary";

type Handler = (event: Event) => void;
/** Attributes by name; `text` sets the text, `on<event>` adds a listener; null, undefined and false leave one out, true sets it empty. */
export type Attributes = Record<string, string | number | boolean | null | undefined | Handler>;
export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attributes, children?: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (attrs) {
    for (const key in attrs) {
      const value = attrs[key];
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (typeof value === "function") node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, "");
      else node.setAttribute(key, String(value));
    }
  }
  for (const child of children ?? []) if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

/** The element with this id, which the page's markup (src/report-builder/page.ts) always has. */
export function byId(id: string): HTMLElement {
  return document.getElementById(id) as HTMLElement;
}

/** The value of the form control an event came from. */
export function fieldValue(event: Event): string {
  return (event.target as HTMLInputElement | HTMLSelectElement).value;
}

export function select(
  id: string,
  label: string,
  options: Options,
  value: string | undefined,
  onchange: (value: string) => void,
): HTMLDivElement {
  return el("div", { class: "field" }, [
    el("label", { for: id, text: label }),
    el(
      "select",
      { id, onchange: (e: Event) => onchange(fieldValue(e)) },
      options.map(([optionValue, optionLabel]) => el("option", { value: optionValue, selected: optionValue === value, text: optionLabel })),
    ),
  ]);
}

export function button(text: string, onclick: () => void, extra?: Attributes): HTMLButtonElement {
  return el("button", { type: "button", onclick, text, ...extra });
}

export function focusLast(id: string): void {
  const node = document.getElementById(id);
  if (node) node.focus();
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return value.toLocaleString(locale, { maximumFractionDigits: 2 });
  if (typeof value === "boolean") return value ? t("yes") : t("no");
  return String(value);
}
