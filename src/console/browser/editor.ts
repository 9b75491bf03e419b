import { el, fill } from "./dom";

// One dashboard's editor (DESIGN 24.2 items 2-8).
export async function showEditor(main: HTMLElement, embedId: string): Promise<void> {
  fill(main, el("h2", { text: embedId }), el("p", { text: "The editor follows." }), el("a", { href: "#", text: "All dashboards" }));
}
