import { beforeAll, describe, expect, it } from "vitest";
import { controlsDashboard, type ControlsDashboard } from "./controls-fixture";
import { call, dashboard } from "../helpers/dashboards";

// The page width (docs/embedding.md, "Responsive layout").
let ctx: ControlsDashboard["ctx"];
let alpha: ControlsDashboard["alpha"];
let embedId: string;

beforeAll(async () => {
  ({ ctx, alpha, embedId } = await controlsDashboard());
});

describe("the page width", () => {
  it("draws charts for their panel's pixel size at that width and stacks below 640 px in reading order", async () => {
    const charts = await dashboard({
      panels: [
        {
          id: "right",
          type: "bar",
          title: "Right",
          schema_id: ctx.schema,
          sql: "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month",
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 6, y: 0, w: 6, h: 4 },
        },
        {
          id: "left",
          type: "bar",
          title: "Left",
          schema_id: ctx.schema,
          sql: "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month",
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 0, y: 0, w: 6, h: 4 },
        },
        {
          id: "below",
          type: "pie",
          title: "Below",
          schema_id: ctx.schema,
          sql: "SELECT product, SUM(amount) AS revenue FROM orders GROUP BY product",
          label_column: "product",
          value_column: "revenue",
          layout: { x: 0, y: 4, w: 12, h: 4 },
        },
      ],
    });
    const viewBoxes = async (width: number) => {
      const html: string = (await call("GET", `/embed/${charts}?customer_token=${alpha.token}&width=${width}`)).body;
      const order = [...html.matchAll(/data-panel-id="([^"]+)"/g)].map((m) => m[1]);
      const boxes = [...html.matchAll(/viewBox="0 0 (\d+) (\d+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
      return { html, order, boxes };
    };
    const wide = await viewBoxes(1280);
    // 1200 px of content, 12 columns with 16 px gaps: w=6 → 592 px, minus 32 padding and 2 border.
    expect(wide.boxes[0][0]).toBe(558);
    expect(wide.boxes[2][0]).toBe(1200 - 34);
    expect(wide.html).not.toContain('class="dashboard stacked"');
    const tablet = await viewBoxes(768);
    expect(tablet.boxes[0][0]).toBe(Math.floor(((768 - 32 - 176) / 12) * 6 + 80 - 34));
    const phone = await viewBoxes(360);
    expect(phone.html).toContain('class="dashboard stacked"');
    expect(phone.order).toEqual(["left", "right", "below"]);
    expect(phone.boxes.map((b) => b[0])).toEqual([360 - 24 - 34, 360 - 24 - 34, 360 - 24 - 34]);
    // Out of range widths are clamped to 320–4096; nonsense is the default 1280.
    expect((await viewBoxes(100)).boxes[0][0]).toBe(320 - 24 - 34);
    expect((await viewBoxes(Number.NaN)).boxes[0][0]).toBe(558);
  });

  it("marks a page drawn without a width (or with nonsense) to fit the window it is opened in, and only that page", async () => {
    const html = async (query: string): Promise<string> =>
      (await call("GET", `/embed/${embedId}?customer_token=${alpha.token}${query}`)).body;
    const fits = /<main class="dashboard[^"]*"[^>]* data-width="1280" data-fit-window="1232">/;
    expect(await html("")).toMatch(fits);
    expect(await html("&width=wide")).toMatch(fits);
    for (const width of ["1280", "360", "100"]) expect(await html(`&width=${width}`)).toMatch(/<main [^>]*data-width="\d+">/);
  });
});
