import { beforeAll, describe, expect, it } from "vitest";
import sales from "../../examples/dashboards/sales.json";
import { cartesianChart, pieChart } from "../../src/dashboards/charts";
import { call, embed } from "../helpers/dashboards";
import { demoWithFontThemes, HOSTILE, PLAIN } from "../helpers/font-themes";
import { attribute, attributeNames, decodeEntities, type StartTag, startTags } from "../helpers/html-tags";

// docs/theming.md: no value the chart library writes — a theme's font family, series
// names, labels, colors — adds an attribute or an element to a chart. ECharts' SVG renderer
// escapes text content but writes attribute values as given; a theme's `font_family` may hold
// quotes (`"Acme Sans", sans-serif`, the demo theme's kind) and lands in every `<text>`'s
// `style`. The demo dashboard is drawn in a plain theme (the control: which attributes ECharts
// writes), a quoted one and a hostile one, and every element of every chart is compared.

let write: string;
let customer: { token: string };

beforeAll(async () => {
  ({ write, customer } = await demoWithFontThemes());
});

/** The demo dashboard's charts (each `<svg class="chart">…</svg>`) in the customer's theme `name`. */
async function chartsIn(theme: string): Promise<string[]> {
  const updated = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "acme-berlin", theme } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  const res = await embed(sales.embed_id, customer.token);
  expect(res.status).toBe(200);
  expect(res.body).toContain(`data-theme="${theme}"`);
  const charts = (res.body as string).match(/<svg class="chart"[\s\S]*?<\/svg>/g) ?? [];
  expect(charts.length).toBeGreaterThan(0);
  return charts;
}

/** Attribute names per element name, over every element of the charts. */
function attributesByElement(charts: string[]): Map<string, Set<string>> {
  const byName = new Map<string, Set<string>>();
  for (const tag of charts.flatMap(startTags)) {
    const seen = byName.get(tag.name) ?? new Set<string>();
    for (const name of attributeNames(tag)) seen.add(name);
    byName.set(tag.name, seen);
  }
  return byName;
}

/** Every element has only attributes the control's elements of its name have, each at most once. */
function expectOnlyKnown(tags: StartTag[], known: Map<string, Set<string>>): void {
  for (const tag of tags) {
    const names = attributeNames(tag);
    expect(known.has(tag.name), `unknown element <${tag.name}>`).toBe(true);
    expect(new Set(names).size, `a repeated attribute on <${tag.name}>: ${names}`).toBe(names.length);
    for (const name of names) expect(known.get(tag.name)?.has(name), `<${tag.name} ${name}>`).toBe(true);
  }
}

const texts = (charts: string[]) => charts.flatMap(startTags).filter((t) => t.name === "text");
/** Each chart's `<svg>`: the labels' shared font is written once there (src/dashboards/chart-svg-text.ts). */
const roots = (charts: string[]) => charts.map((chart) => startTags(chart)[0]);
/** No label names a family of its own: each inherits its chart's. */
const noOwnFamily = (charts: string[]) => {
  for (const text of texts(charts)) expect(attribute(text, "style") ?? "").not.toContain("font-family");
};

describe("a theme's font family in the charts", () => {
  let control: Map<string, Set<string>>;

  beforeAll(async () => {
    control = attributesByElement(await chartsIn("Plain"));
  });

  it("control: a plain font gives <text> only the attributes ECharts writes, the font in its chart's style", async () => {
    expect([...(control.get("text") ?? [])].sort()).toEqual(["fill", "style", "text-anchor", "transform", "x", "xml:space", "y"]);
    const charts = await chartsIn("Plain");
    for (const root of roots(charts)) expect(attribute(root, "style")).toBe(`font-size:12px;font-family:${PLAIN};`);
    noOwnFamily(charts);
  });

  it('a family with quotes ("Acme Sans") adds no attribute and still names its font', async () => {
    const charts = await chartsIn("Quoted");
    expectOnlyKnown(charts.flatMap(startTags), control);
    for (const root of roots(charts)) expect(attribute(root, "style")).toMatch(/font-family:"Acme Sans", 'Other', sans-serif;/);
    noOwnFamily(charts);
  });

  it(`a hostile family (${HOSTILE}) adds no attribute and no element`, async () => {
    const charts = await chartsIn("Hostile");
    const tags = charts.flatMap(startTags);
    expectOnlyKnown(tags, control);
    expect(tags.some((t) => attributeNames(t).some((name) => ["autofocus", "onfocus"].includes(name)))).toBe(false);
    for (const root of roots(charts)) expect(attribute(root, "style")).toContain(`font-family:${HOSTILE};`);
    noOwnFamily(charts);
  });
});

describe("series names and labels in the charts", () => {
  const hostile = `s" onmouseover="alert(1)" x='<script>alert(2)</script>`;
  const size = { width: 600, height: 300 };
  const rows = [
    { day: hostile, revenue: 3, [hostile]: 1 },
    { day: "2026-03-02", revenue: 4, [hostile]: 2 },
  ];
  // Labels with spaces in the controls: ECharts writes `xml:space` on those.
  const words = (names: Record<string, string>) => ({ clock: { locale: "en-US", timezone: "UTC" }, formats: {}, names });

  it("control: plain names give <text> the attributes ECharts writes, and read back as given", () => {
    const plain = cartesianChart("bar", [{ day: "Mon", revenue: 3, costs: 1 }], "day", ["revenue", "costs"], size);
    const tags = startTags(plain);
    expect(tags.filter((t) => t.name === "script")).toHaveLength(0);
    expect(plain).toContain(">revenue</text>");
    expect(plain).toContain(">Mon</text>");
  });

  for (const type of ["bar", "line", "area"] as const) {
    it(`a ${type} chart: a hostile series name and category label stay text`, () => {
      const control = attributesByElement([cartesianChart(type, [{ day: "Mon day", "a b": 3, "c d": 1 }], "day", ["a b", "c d"], size)]);
      const svg = cartesianChart(type, rows, "day", ["revenue", hostile], size, words({ revenue: hostile }), undefined, true);
      const tags = startTags(svg);
      expectOnlyKnown(tags, control);
      expect(tags.filter((t) => t.name === "script")).toHaveLength(0);
      const shown = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => decodeEntities(m[1]));
      expect(shown).toContain(hostile);
    });
  }

  it("a pie: a hostile slice label stays text", () => {
    const control = attributesByElement([
      pieChart(
        [
          { k: "a b", v: 1 },
          { k: "c d", v: 2 },
        ],
        "k",
        "v",
        size,
      ),
    ]);
    const svg = pieChart(rows, "day", "revenue", size);
    const tags = startTags(svg);
    expectOnlyKnown(tags, control);
    expect(tags.filter((t) => t.name === "script")).toHaveLength(0);
    const shown = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => decodeEntities(m[1]));
    expect(shown).toContain(hostile);
  });
});
