import { describe, expect, it } from "vitest";
import { cartesianChart, chartPoints, MAX_CHART_POINTS, MAX_PIE_SLICES, pieChart, pieSlices } from "../../src/dashboards/charts";

// Charts are bounded: at most MAX_CHART_POINTS points per series, a pie at most MAX_PIE_SLICES
// slices (the rest one "Other"), whatever the rows. The review's case: a 10,000-row pie.

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `item ${i}`, value: i + 1, other: 2 * i }));
const size = { width: 800, height: 400 };

describe("chart point caps", () => {
  it("draws a 10,000-row pie as 50 slices, the rest summed in 'Other', quickly", () => {
    const started = performance.now();
    const svg = pieChart(rows(10_000), "label", "value", size);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(svg).toContain("Other");
    expect(svg).not.toContain("item 0<"); // the smallest slices are in "Other"
    const slices = pieSlices(rows(10_000).map((r) => ({ name: r.label, value: r.value })));
    expect(slices).toHaveLength(MAX_PIE_SLICES);
    expect(slices.at(-1)).toEqual({ name: "Other", value: (9_951 * 9_952) / 2 });
    expect(slices.slice(0, -1).map((s) => s.value)).toEqual(Array.from({ length: 49 }, (_, i) => 9_952 + i));
  });

  it("draws a 10,000-row line chart with at most 1000 points per series, evenly spread, quickly", () => {
    const started = performance.now();
    const svg = cartesianChart("line", rows(10_000), "label", ["value", "other"], size);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(svg).toContain("<svg");
    const points = chartPoints(rows(10_000));
    expect(points).toHaveLength(MAX_CHART_POINTS);
    expect(points[0].label).toBe("item 0");
    expect(points[1].label).toBe("item 10");
    expect(points.at(-1)?.label).toBe("item 9990");
  });

  it("draws a small result whole (control)", () => {
    expect(chartPoints(rows(5))).toHaveLength(5);
    expect(
      pieSlices([
        { name: "a", value: 1 },
        { name: "b", value: 2 },
      ]),
    ).toEqual([
      { name: "a", value: 1 },
      { name: "b", value: 2 },
    ]);
    expect(pieSlices(rows(MAX_PIE_SLICES).map((r) => ({ name: r.label, value: r.value })))).toHaveLength(MAX_PIE_SLICES);
    expect(pieChart(rows(3), "label", "value", size)).not.toContain("Other");
  });
});
