// Charts as viewers read them, in a real browser (puppeteer-core on the local Chromium) against
// the real `npm start` (docs/accessibility.md): every label of a 4-category bar chart at 320,
// 360 and 720 px, axis numbers grouped as the locale groups them, marks named in the view's
// language, "Show as table" by mouse and keyboard (checked by axe-core in that state too), the
// focus ring in the theme's accent, and nothing moving for a viewer who prefers reduced motion.
// Screenshots of the embed page and its "Show as table" state at 360 and 1280 px in test-results/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminClient, pushDashboard } from "../../scripts/lib/admin-client.mjs";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { axeViolations, describeViolations } from "./axe";
import { devApi } from "./service-api";

declare const document: any;
declare const getComputedStyle: any;

const shots = join(import.meta.dirname, "..", "..", "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let browser: Browser;
const api = (path: string, body: unknown) => devApi(server.base, server.vars.DEV_API_TOKEN)(path, body);

const PRODUCTS = ["Analytics", "Seats", "Storage", "Support"];
/** A bar chart of the demo's four products, its bars clickable (emit). */
const fourProducts = {
  embed_id: "four-products",
  name: "Four products",
  definition: {
    title: "Four products",
    panels: [
      {
        id: "by_product",
        type: "bar",
        title: "Revenue by product",
        schema_id: 1,
        sql: "SELECT product, ROUND(SUM(amount), 2) AS revenue FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY product ORDER BY product",
        x_column: "product",
        y_columns: ["revenue"],
        on_click: { action: "emit" },
        layout: { x: 0, y: 0, w: 6, h: 5 },
      },
    ],
  },
};

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort() });
  const pushed = await pushDashboard(adminClient(server.base, server.vars.ADMIN_TOKEN), fourProducts, { tags: ["production"] });
  expect(pushed.success, JSON.stringify(pushed)).toBe(1);
  const theme = await api("/api/create_theme/", {
    name: "Orange night",
    theme: { mode: "dark", colors: { accent: "#fb923c" } },
  });
  expect(theme.status, JSON.stringify(theme.body)).toBe(200);
  browser = await launchBrowser();
  mkdirSync(shots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(embedId: string, width: number, choice: Record<string, unknown> = {}): Promise<Page> {
  const minted = await api("/api/generate_embed_token/", { provided_id: "acme", dashboard_embed_id: embedId, locale: "en-US", ...choice });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  await page.goto(`${minted.body.embed_url}&width=${width}`);
  await page.waitForSelector("body[data-render-complete=true]");
  return page;
}

/** Each category label of the first chart: its text and where it is on screen. */
function categoryLabels(names: string[]) {
  const svg = document.querySelector("svg.chart");
  const frame = svg.getBoundingClientRect();
  return names.map((name: string) => {
    const text = [...svg.querySelectorAll("text")].find((t: any) => t.textContent === name);
    if (!text) return { name, present: false };
    const r = text.getBoundingClientRect();
    const shown = getComputedStyle(text).visibility !== "hidden" && getComputedStyle(text).display !== "none";
    return {
      name,
      present: true,
      shown,
      box: { left: r.left, right: r.right, top: r.top, bottom: r.bottom },
      inside: r.width > 0 && r.height > 0 && r.left >= frame.left - 1 && r.right <= frame.right + 1 && r.bottom <= frame.bottom + 1,
      onScreen: r.left >= 0 && r.right <= document.documentElement.clientWidth,
    };
  });
}

describe("a 4-category bar chart at every width", () => {
  it.each([320, 360, 720])(
    "%i px: all four labels are in the SVG and on screen, none over another",
    async (width) => {
      const page = await open("four-products", width);
      const labels: any[] = await page.evaluate(categoryLabels, PRODUCTS);
      if (width === 360) await page.screenshot({ path: join(shots, "four-products-360.png"), fullPage: true });
      await page.close();
      for (const label of labels) expect(label, label.name).toMatchObject({ present: true, shown: true, inside: true, onScreen: true });
      // Drawn apart: no two labels' boxes overlap (a rotated label's box is its bounding box).
      const overlaps = (a: any, b: any) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const rotated = labels.some((l) => l.box.bottom - l.box.top > 20);
      if (!rotated) for (let i = 1; i < labels.length; i++) expect(overlaps(labels[i - 1].box, labels[i].box)).toBe(false);
    },
    60_000,
  );
});

describe("the view's language and the theme", () => {
  it("de-DE: value axis grouped like tables (10.000), marks named in German, the chart a named group of them", async () => {
    const page = await open("four-products", 720, { locale: "de-DE" });
    const seen = await page.evaluate(() => {
      const svg = document.querySelector("svg.chart");
      return {
        role: svg.getAttribute("role"),
        name: svg.getAttribute("aria-label"),
        description: svg.querySelector("desc")?.textContent,
        numbers: [...svg.querySelectorAll("text")].map((t: any) => t.textContent).filter((t: string) => /^[\d.,\s]+$/.test(t)),
        marks: [...svg.querySelectorAll("[data-pick]")].map((m: any) => m.getAttribute("aria-label")),
      };
    });
    await page.close();
    expect(seen.role).toBe("group");
    expect(seen.name).toBe("Revenue by product");
    expect(seen.description).toMatch(/^Balkendiagramm von revenue nach product\. Punkte: 4\. Werte von [\d.]+,\d+ bis [\d.]+,\d+\.$/);
    const big = seen.numbers.filter((n: string) => Number(n.replace(/\./g, "").replace(",", ".")) >= 1000);
    expect(big.length).toBeGreaterThan(0);
    for (const n of big) expect(n).toMatch(/^\d{1,3}(\.\d{3})+$/);
    expect(seen.marks).toHaveLength(4);
    for (const [i, mark] of seen.marks.entries()) expect(mark).toBe(`product ${PRODUCTS[i]} auswählen`);
  }, 60_000);

  it("draws the focus ring of a bar and of Show as table in the theme's accent (control: the built-in accent)", async () => {
    for (const [choice, accent] of [
      [{ theme: "Orange night" }, "rgb(251, 146, 60)"],
      [{}, "rgb(79, 70, 229)"],
    ] as const) {
      const page = await open("four-products", 720, choice);
      const rings: string[] = [];
      for (let i = 0; i < 6 && rings.length < 2; i++) {
        await page.keyboard.press("Tab");
        const ring = await page.evaluate(() => {
          const active = document.activeElement;
          const toggle = active.closest(".as-table");
          const target = toggle ?? active;
          const style = getComputedStyle(target);
          return active.matches("[data-pick], .as-table input") && style.outlineStyle !== "none" ? style.outlineColor : null;
        });
        if (ring) rings.push(ring);
      }
      await page.close();
      expect(rings).toEqual([accent, accent]);
    }
  }, 60_000);
});

describe("Show as table", () => {
  it("swaps the chart for a table of the same rows, by mouse and by keyboard; axe finds nothing in that state either", async () => {
    const page = await open("four-products", 720);
    const state = () =>
      page.evaluate(() => ({
        chart: getComputedStyle(document.querySelector("svg.chart")).display,
        table: getComputedStyle(document.querySelector(".chart-table")).display,
        rows: [...document.querySelectorAll(".chart-table tbody tr")].map((tr: any) => tr.children[0].textContent.trim()),
      }));
    expect(await state()).toMatchObject({ table: "none" });
    await page.click(".as-table");
    const shown = await state();
    expect(shown.chart).toBe("none");
    expect(shown.table).toBe("flex");
    expect(shown.rows.map((r: string) => PRODUCTS.find((p) => r.includes(p)))).toEqual(PRODUCTS);
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);
    // Space on the focused control swaps back.
    await page.focus(".as-table input");
    await page.keyboard.press("Space");
    expect(await state()).toMatchObject({ table: "none" });
    expect((await state()).chart).not.toBe("none");
    await page.close();
  }, 60_000);

  it.each([360, 1280])(
    "screenshots of the embed page and its Show as table state at %i px",
    async (width) => {
      const page = await open("sales-overview", width);
      await page.screenshot({ path: join(shots, `a11y-embed-${width}.png`), fullPage: true });
      await (await page.$('[data-panel-id="by_month"]'))?.screenshot({ path: join(shots, `a11y-by-month-${width}.png`) });
      for (const toggle of await page.$$(".as-table")) await toggle.click();
      expect(await page.$$eval("svg.chart", (svgs: any[]) => svgs.filter((s) => getComputedStyle(s).display !== "none").length)).toBe(0);
      await page.screenshot({ path: join(shots, `a11y-embed-${width}-tables.png`), fullPage: true });
      const violations = await axeViolations(page);
      await page.close();
      expect(violations, describeViolations(violations)).toEqual([]);
    },
    60_000,
  );
});

describe("reduced motion", () => {
  it("stops every animation and transition for a viewer who prefers reduced motion (control: they run otherwise)", async () => {
    const page = await open("sales-overview", 1280);
    const probe = () =>
      page.evaluate(() => {
        let moving = document.getElementById("moving");
        if (!moving) {
          const style = document.createElement("style");
          style.textContent = "@keyframes spin{to{transform:rotate(1turn)}}#moving{animation:spin 1s infinite;transition:opacity 2s}";
          document.head.appendChild(style);
          moving = document.createElement("div");
          moving.id = "moving";
          document.body.appendChild(moving);
        }
        const s = getComputedStyle(moving);
        return {
          animation: s.animationName,
          transition: s.transitionDuration,
          charts: document.querySelectorAll("svg animate, svg animateTransform").length,
        };
      });
    expect(await probe()).toMatchObject({ animation: "spin", transition: "2s" });
    await page.emulateMediaFeatures([{ name: "prefers-reduced-motion", value: "reduce" }]);
    expect(await probe()).toEqual({ animation: "none", transition: "0s", charts: 0 });
    await page.close();
  }, 60_000);
});
