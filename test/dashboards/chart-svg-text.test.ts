import { describe, expect, it } from "vitest";
import { sharedTextStyle } from "../../src/dashboards/chart-svg-text";

// src/dashboards/chart-svg-text.ts: the labels' shared font is written once on the chart's <svg>;
// what a label has of its own stays on it.

const FONT = "system-ui, sans-serif";
const drawn = (texts: string) =>
  `<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" baseProfile="full" viewBox="0 0 10 10">${texts}</svg>`;

describe("the labels' shared style, written once", () => {
  it("moves the shared size, family and baseline to the <svg> and keeps the rest of each <text>", () => {
    const svg = sharedTextStyle(
      drawn(
        `<text dominant-baseline="central" text-anchor="end" style="font-size:12px;font-family:${FONT};" fill="#475569">0</text>` +
          `<text dominant-baseline="central" text-anchor="middle" style="font-size:12px;font-family:${FONT};font-weight:600;" fill="#fff">28 %</text>`,
      ),
      FONT,
    );
    expect(svg).toBe(
      `<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" style="font-size:12px;font-family:${FONT};" dominant-baseline="central">` +
        `<text text-anchor="end" fill="#475569">0</text>` +
        `<text text-anchor="middle" style="font-weight:600;" fill="#fff">28 %</text></svg>`,
    );
  });

  it("leaves a label's own size, baseline and another family on it (control: they win over what it inherits)", () => {
    const own = `<text dominant-baseline="alphabetic" style="font-size:16px;font-family:serif;">Title</text>`;
    expect(sharedTextStyle(drawn(own), FONT)).toContain(own);
  });

  it("puts the shared style before a style ECharts gave the <svg> itself", () => {
    const svg = sharedTextStyle(`<svg class="chart" style="background:#fff">${"<text>x</text>"}</svg>`, FONT);
    expect(svg).toBe(
      `<svg class="chart" style="font-size:12px;font-family:${FONT};background:#fff" dominant-baseline="central"><text>x</text></svg>`,
    );
  });
});
