// Small DOM helpers: the console is built from the admin API's answers with these, no UI
// library (it would outweigh the code it replaces and the console script's size budget).

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

let ids = 0;
/** An id for a label's `for` or an `aria-describedby`, unique in the page. */
export function newId(prefix: string): string {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** Replaces what `parent` holds. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => Boolean(c)));
}

/** A labelled field with room for its error below it (the error's id is on the control's aria-describedby). */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, path?: string): HTMLElement {
  const id = control.id || newId("f");
  control.id = id;
  const error = el("p", { class: "error", id: `${id}-error` });
  if (path !== undefined) error.dataset.path = path;
  control.setAttribute("aria-describedby", error.id);
  return el("div", { class: "field" }, [el("label", { for: id, text: label }), control, error]);
}

export function input(attrs: Attributes): HTMLInputElement {
  return el("input", { type: "text", ...attrs });
}

export function button(text: string, onclick: Handler, attrs: Attributes = {}): HTMLButtonElement {
  return el("button", { type: "button", text, onclick, ...attrs });
}

export function selectOf(
  options: readonly (string | [string, string])[],
  value: string | undefined,
  attrs: Attributes = {},
): HTMLSelectElement {
  const select = el("select", attrs);
  for (const option of options) {
    const [v, text] = typeof option === "string" ? [option, option] : option;
    select.append(el("option", { value: v, text, selected: v === value }));
  }
  return select;
}

/** When a time was, in the browser's own locale and zone (the console's user, not a customer). */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
