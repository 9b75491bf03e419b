import { type DefaultTreeAdapterMap, parse } from "parse5";
import { beforeAll, describe, expect, it } from "vitest";
import sales from "../../examples/dashboards/sales.json";
import { call, embed } from "../helpers/dashboards";
import { demoWithFontThemes, HOSTILE, PLAIN, QUOTED } from "../helpers/font-themes";

// docs/theming.md (fonts in charts), read by a real HTML parser (parse5, the WHATWG parsing algorithm a
// browser runs, SVG foreign content included): a theme's font_family with quotes — the demo
// theme's kind, and a hostile one — gives no element of any chart an attribute that the same
// dashboard in a plain theme (the control) does not have, and the family reaches the style of
// the chart's <svg>, which its texts inherit, as given.

type Element = DefaultTreeAdapterMap["element"];
type Node = DefaultTreeAdapterMap["node"];

let write: string;
let customer: { token: string };

beforeAll(async () => {
  ({ write, customer } = await demoWithFontThemes());
});

const isElement = (node: Node): node is Element => "tagName" in node;
const children = (node: Node): Node[] => ("childNodes" in node ? (node.childNodes as Node[]) : []);

/** Every element under `node`, in document order. */
function elements(node: Node): Element[] {
  return children(node).flatMap((child) => (isElement(child) ? [child, ...elements(child)] : []));
}

const attributeNames = (element: Element) => element.attrs.map((a) => (a.prefix ? `${a.prefix}:${a.name}` : a.name));
const attributeOf = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value;

/** The embed page in theme `theme`, parsed; and the elements of its charts (each <svg class="chart">, as the parser built them). */
async function pageIn(theme: string): Promise<{ all: Element[]; charts: Element[] }> {
  const updated = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "acme-berlin", theme } });
  expect(updated.status).toBe(200);
  const res = await embed(sales.embed_id, customer.token);
  expect(res.status).toBe(200);
  const all = elements(parse(res.body as string));
  const svgs = all.filter((e) => e.tagName === "svg" && (attributeOf(e, "class") ?? "").split(" ").includes("chart"));
  expect(svgs.length).toBeGreaterThan(0);
  return { all, charts: svgs.flatMap((svg) => [svg, ...elements(svg)]) };
}

/** Attribute names per element name (with the element's namespace: an element the parser moved out of SVG shows). */
function known(charts: Element[]): Map<string, Set<string>> {
  const byName = new Map<string, Set<string>>();
  for (const element of charts) {
    const key = `${element.namespaceURI} ${element.tagName}`;
    const seen = byName.get(key) ?? new Set<string>();
    for (const name of attributeNames(element)) seen.add(name);
    byName.set(key, seen);
  }
  return byName;
}

describe("a theme's font family in the charts, read by an HTML parser", () => {
  let control: Map<string, Set<string>>;
  beforeAll(async () => {
    control = known((await pageIn("Plain")).charts);
  });

  it("control: the plain theme's <text> elements are SVG text with ECharts' own attributes, the family in their chart's style", async () => {
    const { charts } = await pageIn("Plain");
    const texts = charts.filter((e) => e.tagName === "text");
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.every((t) => t.namespaceURI === "http://www.w3.org/2000/svg")).toBe(true);
    expect([...(control.get("http://www.w3.org/2000/svg text") ?? [])]).toEqual(expect.arrayContaining(["style", "x", "y", "fill"]));
    const svgs = charts.filter((e) => e.tagName === "svg");
    for (const svg of svgs) expect(attributeOf(svg, "style")).toContain(`font-family:${PLAIN};`);
    for (const text of texts) expect(attributeOf(text, "style") ?? "").not.toContain("font-family");
  });

  it.each([
    ["quoted", "Quoted", QUOTED],
    ["hostile", "Hostile", HOSTILE],
  ])("a %s family adds no element and no attribute to any chart, and reaches each chart's style as given", async (_kind, theme, family) => {
    const { all, charts } = await pageIn(theme);
    const seen = known(charts);
    for (const [element, names] of seen) {
      expect(control.has(element), `an element the control has not: ${element}`).toBe(true);
      for (const name of names) expect(control.get(element)?.has(name), `${element} [${name}]`).toBe(true);
    }
    expect(all.some((e) => attributeNames(e).some((n) => n === "autofocus" || n.startsWith("on")))).toBe(false);
    const texts = charts.filter((e) => e.tagName === "text");
    expect(texts.length).toBeGreaterThan(10);
    for (const svg of charts.filter((e) => e.tagName === "svg")) expect(attributeOf(svg, "style")).toContain(`font-family:${family};`);
    for (const text of texts) expect(attributeOf(text, "style") ?? "").not.toContain("font-family");
  });
});
