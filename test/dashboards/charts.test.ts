import { describe, expect, it } from "vitest";
import { cartesianChart, drawnChartCount, pieChart } from "../../src/dashboards/charts";

const rows = [
  { month: "2026-01", revenue: 120, cost: 80 },
  { month: "2026-02", revenue: 150, cost: 90 },
];
const size = { width: 480, height: 240 };

describe("charts are drawn once per isolate for the same data and size", () => {
  it("gives the same SVG, not a new drawing, for a chart drawn before (ECharts numbers each drawing: zrN)", () => {
    const first = cartesianChart("bar", rows, "month", ["revenue"], size);
    const count = drawnChartCount();
    const again = cartesianChart(
      "bar",
      rows.map((row) => ({ ...row })),
      "month",
      ["revenue"],
      { ...size },
    );
    expect(again).toBe(first);
    expect(drawnChartCount()).toBe(count);
  });

  it("draws anew when anything shown changes: a value, a category, a series, the kind, the size", () => {
    const base = cartesianChart("line", rows, "month", ["revenue"], size);
    const variants = [
      cartesianChart("line", [{ ...rows[0], revenue: 121 }, rows[1]], "month", ["revenue"], size),
      cartesianChart("line", [{ ...rows[0], month: "2026-03" }, rows[1]], "month", ["revenue"], size),
      cartesianChart("line", rows, "month", ["revenue", "cost"], size),
      cartesianChart("area", rows, "month", ["revenue"], size),
      cartesianChart("line", rows, "month", ["revenue"], { width: 481, height: 240 }),
    ];
    const drawing = (svg: string) => /id="(zr\d+)-/.exec(svg)?.[1];
    const numbers = new Set([base, ...variants].map(drawing));
    expect(numbers.size).toBe(6);
  });

  it("keeps pies apart by their slices", () => {
    const a = pieChart(
      [
        { k: "A", v: 1 },
        { k: "B", v: 3 },
      ],
      "k",
      "v",
      size,
    );
    const b = pieChart(
      [
        { k: "A", v: 3 },
        { k: "B", v: 1 },
      ],
      "k",
      "v",
      size,
    );
    expect(b).not.toBe(a);
    expect(
      pieChart(
        [
          { k: "A", v: 1 },
          { k: "B", v: 3 },
        ],
        "k",
        "v",
        size,
      ),
    ).toBe(a);
  });
});
