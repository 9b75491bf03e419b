// <report-builder> in a real browser (puppeteer-core on the local Chromium): a vendor page on
// its own origin with its own token-url endpoint, the service from the real `npm start`. The
// user is driven through visible labels only: label texts, button texts, option texts.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, ElementHandle, Frame, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtBrowserScript } from "../../scripts/lib/browser-build.mjs";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../../scripts/lib/embed-host.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { demoOrders } from "../../scripts/lib/seed.mjs";
import { CATALOGUES } from "../../src/view/messages";

// These callbacks run in the browser (page.evaluate); the project's types are the Workers'.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;

const root = join(import.meta.dirname, "..", "..");
const screenshots = join(root, "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let host: Awaited<ReturnType<typeof startEmbedHost>>;
let browser: Browser;
let blueprint: { id: number; embed_id: string };

/** acme-berlin's demo orders, as the builder should add them up. */
const berlin = (demoOrders() as { customer_id: string; day: string; product: string; amount: number }[]).filter(
  (o) => o.customer_id === "acme-berlin",
);
const money = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });
function sumsByProduct(orders: typeof berlin): Map<string, string> {
  const sums = new Map<string, number>();
  for (const o of orders) sums.set(o.product, (sums.get(o.product) ?? 0) + o.amount);
  return new Map([...sums].map(([product, sum]) => [product, money(Math.round(sum * 100) / 100)]));
}

async function api(path: string, body: unknown) {
  const response = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort() });
  host = await startEmbedHost({ apiBase: server.base, apiToken: server.vars.DEV_API_TOKEN });
  browser = await launchBrowser();
  mkdirSync(screenshots, { recursive: true });
  const created = await api("/api/create_blueprint/", {
    customer_id: "acme-berlin",
    blueprint_name: "Berlin sales",
    tables: [
      {
        table_name: "orders",
        schema_id: 1,
        dataset_name: "Orders",
        description: "One row per order, with its product and amount.",
        query: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns: [
          { name: "day", type: "DATE", display_name: "Order day" },
          { name: "product", type: "STRING", display_name: "Product" },
          { name: "amount", type: "FLOAT", display_name: "Amount", can_be_grouped: false },
        ],
      },
      {
        table_name: "order_days",
        schema_id: 1,
        dataset_name: "Order days",
        description: "Days with orders.",
        query: "SELECT DISTINCT day FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns: [{ name: "day", type: "DATE", display_name: "Day" }],
      },
    ],
  });
  blueprint = (await api("/api/get_blueprint/", { blueprint_id: created.blueprint_id })).blueprint;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await server?.stop();
});

// acme-berlin reads German (de-DE); the tests that press controls by their English words mint en-US.
const tokenUrl = (extra = "", locale = "en-US") => `/token?customer=acme-berlin&blueprint=${blueprint.id}&locale=${locale}${extra}`;

type Fired = { type: string; detail: any; ms: number };

/** Opens the vendor page and inserts the element; resolves with its first load or error event. */
async function mount(attributes: Record<string, string>, width = 1280, page?: Page): Promise<{ page: Page; event: Fired }> {
  page ??= await browser.newPage();
  await page.setViewport({ width, height: 900 });
  await page.goto(`${host.origin}/`);
  const event = await page.evaluate((attrs) => {
    return new Promise<Fired>((resolve) => {
      const element = document.createElement("report-builder");
      for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
      const started = performance.now();
      window.saved = [];
      element.addEventListener("report-saved", (e: any) => window.saved.push(e.detail));
      for (const type of ["report-builder-load", "report-builder-error"]) {
        element.addEventListener(type, (e: any) => resolve({ type, detail: e.detail, ms: performance.now() - started }), { once: true });
      }
      document.getElementById("app").appendChild(element);
    });
  }, attributes);
  return { page, event };
}

function builderFrame(page: Page): Frame {
  const frame = page.frames().find((f) => f.url().includes("/report-builder/"));
  if (!frame) throw new Error("no report builder frame");
  return frame;
}

/** The control a visible label names (the last one when rows repeat it). */
async function control(frame: Frame, label: string): Promise<ElementHandle> {
  const handle = await frame.waitForFunction(
    (text: string) => {
      // A dataset's label is its name followed by its description.
      const named = (l: any) =>
        l.textContent.trim() === text || (l.tagName === "LABEL" && l.firstElementChild?.textContent.trim() === text);
      const labels = [...document.querySelectorAll("label, legend")].filter(named);
      const last: any = labels[labels.length - 1];
      if (!last) return null;
      if (last.tagName === "LEGEND") return last.parentElement;
      return last.htmlFor ? document.getElementById(last.htmlFor) : last.querySelector("input, select");
    },
    { timeout: 10_000 },
    label,
  );
  return handle as ElementHandle;
}

async function choose(frame: Frame, label: string, optionText: string): Promise<void> {
  const select = await control(frame, label);
  const value = await select.evaluate(
    (s: any, text: string) => [...s.options].find((o: any) => o.textContent.trim() === text)?.value,
    optionText,
  );
  if (value === undefined) throw new Error(`no option '${optionText}' in '${label}'`);
  await select.select(value);
}

async function press(frame: Frame, text: string): Promise<void> {
  const handle = (await frame.waitForFunction(
    (t: string) =>
      [...document.querySelectorAll("button")].filter((b: any) => b.textContent.trim() === t && b.offsetParent !== null).pop() ?? null,
    { timeout: 10_000 },
    text,
  )) as ElementHandle;
  await handle.click();
}

/** Waits until the result is settled and the table shows what `ready` says. */
async function tableRows(frame: Frame, ready: (rows: string[][]) => boolean, what: string): Promise<string[][]> {
  const deadline = Date.now() + 15_000;
  let rows: string[][] = [];
  while (Date.now() < deadline) {
    rows = await frame.evaluate(() => {
      if (document.getElementById("rb-result").getAttribute("aria-busy") === "true") return [];
      return [...document.querySelectorAll("#rb-table-area tr")].map((tr: any) =>
        [...tr.children].map((c: any) => c.textContent.replace(/ [▲▼]$/, "").trim()),
      );
    });
    if (rows.length && ready(rows)) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`table never showed ${what}: ${JSON.stringify(rows)}`);
}

const chartText = (frame: Frame) =>
  frame.evaluate(() => (document.querySelector("#rb-chart-area svg, #rb-chart-area .chart-holder") as any)?.textContent ?? "");

describe("<report-builder> in a browser", () => {
  it("mounts with token-url and fires report-builder-load; a bad token fires report-builder-error with 401", async () => {
    const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl() });
    expect(event.type).toBe("report-builder-load");
    expect(event.detail.height).toBeGreaterThan(300);
    const frame = builderFrame(page);
    expect(new URL(frame.url()).origin).toBe(server.base);
    // The iframe takes the height of the builder's content.
    const contentHeight = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    await page.waitForFunction(
      (h: number) => Math.abs(document.querySelector("report-builder iframe").getBoundingClientRect().height - h) <= 1,
      {},
      contentHeight,
    );
    await page.close();

    const bad = await mount({ "embed-id": blueprint.embed_id, "token-url": "/bad-token" });
    expect(bad.event).toMatchObject({ type: "report-builder-error", detail: { status: 401 } });
    expect(await builderFrame(bad.page).evaluate(() => document.body.innerText)).not.toContain("Orders");
    await bad.page.close();
  });

  it("runs the built files: embed.js and report-builder.js are the bytes scripts/build-browser.mjs wrote, the page's CSP allows that script only", async () => {
    // A context of its own: nothing comes from the cache of the pages before.
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const served = (test: (url: string) => boolean) => page.waitForResponse((r) => test(r.url()));
    const embedJs = served((url) => url === `${server.base}/embed.js`);
    const builderPage = served((url) => url.startsWith(`${server.base}/report-builder/${blueprint.embed_id}?`));
    const builderJs = served((url) => url === `${server.base}/report-builder.js`);
    const { event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl() }, 1280, page);
    expect(event.type).toBe("report-builder-load");
    // embed.js: the built element, with this service's origin written over its placeholder.
    expect(await (await embedJs).text()).toBe(
      builtBrowserScript("embed-element").replaceAll('"__EMBED_SERVICE_ORIGIN__"', JSON.stringify(server.base)),
    );
    const pageResponse = await builderPage;
    expect(pageResponse.headers()["content-security-policy"]).toContain(`script-src ${server.base}/report-builder.js;`);
    const html = await pageResponse.text();
    expect(html).toContain('<script src="/report-builder.js"></script>');
    expect([...html.matchAll(/<script>/g)]).toHaveLength(0); // no inline script (the boot data is JSON)
    expect(await (await builderJs).text()).toBe(builtBrowserScript("report-builder"));
    await context.close();
  });

  it("builds a report from visible labels: dataset, group, sum, filter, save, reopen, CSV", async () => {
    const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl("&user_id=anna%40acme.example") });
    expect(event.type).toBe("report-builder-load");
    const frame = builderFrame(page);
    await frame.evaluate(() => (window.sameDocument = "yes"));
    const frameUrl = frame.url();

    // Every dataset by name with its description; the columns by display name and type.
    const text = await frame.evaluate(() => document.body.innerText);
    expect(text).toContain("One row per order, with its product and amount.");
    expect(text).toContain("Order days");

    // The starting point is a count of every order: a KPI with acme-berlin's number of orders.
    await (await control(frame, "Orders")).click();
    await tableRows(frame, (rows) => rows.length === 2 && rows[1][0] === String(berlin.length), "the order count");
    expect(await chartText(frame)).toContain(String(berlin.length));

    await press(frame, "Add group");
    await choose(frame, "Group by", "Product");
    await press(frame, "Add value");
    await choose(frame, "Calculate", "Sum");
    await choose(frame, "Of", "Amount");
    const sums = sumsByProduct(berlin);
    const rows = await tableRows(frame, (r) => r[0].includes("Sum of Amount") && r.length === sums.size + 1, "sums by product");
    expect(rows[0]).toEqual(["Product", "Count", "Sum of Amount"]);
    for (const [product, sum] of sums) expect(rows.find((r) => r[0] === product)?.[2], product).toBe(sum);
    // The automatic chart for one category is a bar chart naming every product.
    const chart = await chartText(frame);
    for (const product of sums.keys()) expect(chart).toContain(product);

    // A filter changes the numbers without a navigation of the frame.
    await press(frame, "Add filter");
    await choose(frame, "Filter on", "Product");
    await (await control(frame, "Seats")).click();
    const seats = sumsByProduct(berlin.filter((o) => o.product === "Seats"));
    const filtered = await tableRows(frame, (r) => r.length === 2 && r[1][0] === "Seats", "only Seats");
    expect(filtered[1][2]).toBe(seats.get("Seats"));
    expect(await frame.evaluate(() => window.sameDocument)).toBe("yes");
    expect(builderFrame(page).url()).toBe(frameUrl);

    // Sorting by a header is one click (and one more for the other way round).
    await (await frame.waitForSelector('button[aria-label="Remove filter 1"]'))!.click();
    await tableRows(frame, (r) => r.length === sums.size + 1, "all products again");
    await (await frame.waitForSelector("#rb-sort-sum_amount"))!.click();
    const ascending = await tableRows(frame, (r) => r[0][2] === "Sum of Amount" && r.length === sums.size + 1, "sorted rows");
    const values = ascending.slice(1).map((r) => Number(r[2].replace(/,/g, "")));
    expect(values).toEqual([...values].sort((a, b) => a - b));

    // A change made while a request is in flight cancels it: only the last choice is drawn.
    const aborted: string[] = [];
    page.on("requestfailed", (request) => {
      if (request.url().endsWith("/view")) aborted.push(request.failure()?.errorText ?? "");
    });
    await frame.evaluate(() => {
      const chartType = document.getElementById("rb-chart");
      for (const type of ["pie", "line"]) {
        chartType.value = type;
        chartType.dispatchEvent(new Event("change"));
      }
    });
    await frame.waitForFunction(
      () =>
        document.getElementById("rb-result").getAttribute("aria-busy") === "false" &&
        document.querySelector(".chart-holder.chart-line svg"),
    );
    expect(aborted).toEqual(["net::ERR_ABORTED"]);
    expect(await frame.evaluate(() => document.querySelector(".chart-holder.chart-pie"))).toBeNull();

    // Save with a name: the host hears report-saved with it.
    await (await control(frame, "Report name")).type("Sales by product");
    await press(frame, "Save report");
    await page.waitForFunction(() => window.saved.length > 0);
    const saved = await page.evaluate(() => window.saved[0]);
    expect(saved.name).toBe("Sales by product");
    expect(typeof saved.id).toBe("string");

    // Download CSV: the file has a header and one line per product.
    // The browser saves it in a folder of this test's, removed once read.
    const downloads = mkdtempSync(join(tmpdir(), "rb-downloads-"));
    let csv: string[];
    try {
      const session = await page.createCDPSession();
      await session.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
      await press(frame, "Download CSV");
      const deadline = Date.now() + 10_000;
      while (!readdirSync(downloads).some((f) => f.endsWith(".csv")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const file = readdirSync(downloads).find((f) => f.endsWith(".csv"));
      expect(file).toBeTruthy();
      csv = readFileSync(join(downloads, file!), "utf8").trim().split(/\r?\n/);
    } finally {
      rmSync(downloads, { recursive: true, force: true });
    }
    expect(csv.length).toBe(sums.size + 1);
    for (const [product, sum] of sums) {
      const line = csv.find((l) => l.startsWith(`${product},`));
      expect(line, product).toBeTruthy();
      const cells = line!.split(",");
      expect(Number(cells[1])).toBe(berlin.filter((o) => o.product === product).length);
      expect(Number(cells[2])).toBeCloseTo(Number(sum.replace(/,/g, "")), 2);
    }

    // Next week: the host page is loaded again and the saved report opened from the list.
    const again = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl() }, 1280, page);
    const frame2 = builderFrame(again.page);
    expect(await frame2.evaluate(() => document.body.innerText)).toContain("Sales by product");
    await (await frame2.waitForSelector('button[aria-label="Open Sales by product"]'))!.click();
    const reopened = await tableRows(frame2, (r) => r[0].includes("Sum of Amount") && r.length === sums.size + 1, "the saved report");
    for (const [product, sum] of sums) expect(reopened.find((r) => r[0] === product)?.[2]).toBe(sum);
    await again.page.close();
  }, 90_000);

  it("a click on a bar or a row of a grouped result toggles an eq filter on its group column (mouse, Tab + Enter/Space); the host hears it", async () => {
    const counts = new Map<string, number>();
    for (const o of berlin) counts.set(o.product, (counts.get(o.product) ?? 0) + 1);
    const all = (r: string[][]) => r[0].join() === "Product,Count" && r.length === counts.size + 1;
    const only = (product: string) => (r: string[][]) => r.length === 2 && r[1][0] === product;
    /** The filter list as the user reads it: "column condition value" per row. */
    const filters = (frame: Frame) =>
      frame.evaluate(() =>
        [...document.querySelectorAll(".row.filter")].map((row: any) =>
          [...row.querySelectorAll("select, input")]
            .map((c: any) => (c.tagName === "SELECT" ? c.selectedOptions[0].textContent : c.value))
            .join(" "),
        ),
      );
    const bar = (frame: Frame, product: string) =>
      frame.waitForSelector(`#rb-chart-area [role="button"][aria-label="Filter on Product ${product}"]`);
    const focused = (frame: Frame) =>
      frame.evaluate(() => ({
        label: document.activeElement?.getAttribute("aria-label"),
        outline: getComputedStyle(document.activeElement).outlineStyle,
      }));

    for (const width of [1280, 360]) {
      const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl() }, width);
      expect(event.type).toBe("report-builder-load");
      await page.evaluate(() => {
        window.clicks = [];
        window.addEventListener(
          "message",
          (e: any) => e.data?.source === "report-builder" && e.data.type === "click" && window.clicks.push(e.data),
        );
      });
      const frame = builderFrame(page);
      await (await control(frame, "Orders")).click();
      await press(frame, "Add group");
      await choose(frame, "Group by", "Product");
      await tableRows(frame, all, "counts by product");

      // A bar: a pointer, one click filters to its product, the filter is in the list; the host hears the click.
      const seats = (await bar(frame, "Seats"))!;
      expect(await seats.evaluate((b: any) => getComputedStyle(b).cursor)).toBe("pointer");
      await seats.click();
      expect((await tableRows(frame, only("Seats"), "only Seats"))[1][1]).toBe(String(counts.get("Seats")));
      expect(await filters(frame)).toEqual(["Product is Seats"]);
      expect(await chartText(frame)).not.toContain("Storage");
      expect(await page.evaluate(() => window.clicks)).toEqual([
        {
          source: "report-builder",
          type: "click",
          column: "product",
          value: "Seats",
          row: { product: "Seats", count: counts.get("Seats") },
        },
      ]);
      // The same bar again: the filter goes, every product is back.
      await (await bar(frame, "Seats"))!.click();
      await tableRows(frame, all, "every product again");
      expect(await filters(frame)).toEqual([]);

      // Keyboard: Tab reaches the bars after the downloads, with a visible ring; Enter filters, Space clears.
      await frame.evaluate(() => document.getElementById("rb-xlsx").focus());
      let at = { label: "", outline: "" } as { label?: string | null; outline: string };
      for (let i = 0; i < 10 && at.label !== "Filter on Product Storage"; i++) {
        await page.keyboard.press("Tab");
        at = await focused(frame);
        if (at.label?.startsWith("Filter on")) expect(at.outline).not.toBe("none");
      }
      expect(at.label).toBe("Filter on Product Storage");
      if (width === 1280)
        await (await page.$("report-builder"))!.screenshot({ path: join(screenshots, "report-builder-click-focus-1280.png") });
      await page.keyboard.press("Enter");
      await tableRows(frame, only("Storage"), "only Storage");
      expect(await filters(frame)).toEqual(["Product is Storage"]);
      // Focus stays on the bar of that product in the redrawn chart: a second key press clears it.
      expect((await focused(frame)).label).toBe("Filter on Product Storage");
      await page.keyboard.press("Space");
      await tableRows(frame, all, "every product after Space");
      expect(await filters(frame)).toEqual([]);

      // A row of the table: a click anywhere on it filters; its product is a button Tab and Enter reach.
      const row = await frame.waitForFunction(
        () => [...document.querySelectorAll("#rb-table-area tbody tr")].find((tr: any) => tr.cells[0].textContent === "Support") ?? null,
      );
      expect(await row.evaluate((tr: any) => getComputedStyle(tr).cursor)).toBe("pointer");
      await (await (row as ElementHandle).$("td:nth-child(2)"))!.click();
      await tableRows(frame, only("Support"), "only Support");
      expect(await filters(frame)).toEqual(["Product is Support"]);
      expect(await frame.evaluate(() => document.querySelector("#rb-table-area tbody .pick").getAttribute("aria-pressed"))).toBe("true");
      await page.screenshot({ path: join(screenshots, `report-builder-click-${width}.png`), fullPage: true });
      await frame.evaluate(() => document.querySelector("#rb-table-area tbody .pick").focus());
      await page.keyboard.press("Enter");
      await tableRows(frame, all, "every product after the row's Enter");
      expect(await filters(frame)).toEqual([]);
      expect(await page.evaluate(() => window.clicks.map((c: any) => c.value))).toEqual([
        "Seats",
        "Seats",
        "Storage",
        "Storage",
        "Support",
        "Support",
      ]);
      await page.close();
    }
  }, 90_000);

  it("renames, deletes after confirming, and marks a report the blueprint no longer supports as broken", async () => {
    const orders = (columns: { name: string; type: string }[]) => [
      {
        table_name: "orders",
        schema_id: 1,
        dataset_name: "Orders",
        query: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns,
      },
    ];
    const created = await api("/api/create_blueprint/", {
      customer_id: "acme-berlin",
      blueprint_name: "Changing",
      tables: orders([
        { name: "day", type: "DATE" },
        { name: "product", type: "STRING" },
        { name: "amount", type: "FLOAT" },
      ]),
    });
    const changing = (await api("/api/get_blueprint/", { blueprint_id: created.blueprint_id })).blueprint;
    const token = (await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: changing.id, locale: "en-US" }))
      .token;
    for (const [name, column] of [
      ["By product", "product"],
      ["By day", "day"],
    ]) {
      const saved = await fetch(`${server.base}/report-builder/${changing.embed_id}/reports`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          name,
          query: { dataset: "Orders", group_by: [{ column }], values: [{ aggregate: "count" }] },
          chart: { type: "bar" },
        }),
      });
      expect(saved.status).toBe(200);
    }
    // The vendor drops the product column.
    await api("/api/update_blueprint/", {
      blueprint_id: changing.id,
      tables: orders([
        { name: "day", type: "DATE" },
        { name: "amount", type: "FLOAT" },
      ]),
    });

    const { page } = await mount({
      "embed-id": changing.embed_id,
      "token-url": `/token?customer=acme-berlin&blueprint=${changing.id}&locale=en-US`,
    });
    const frame = builderFrame(page);
    const item = (name: string) =>
      frame.evaluate(
        (n: string) => [...document.querySelectorAll(".reports li")].find((li: any) => li.textContent.includes(n))?.textContent ?? null,
        name,
      );
    expect(await item("By product")).toContain("broken");
    expect(await item("By product")).toContain("The column “product” no longer exists in Orders.");
    expect(await item("By day")).not.toContain("broken");

    // Opening the broken one shows why, in place of the result (never a blank panel).
    await (await frame.waitForSelector('button[aria-label="Open By product"]'))!.click();
    await frame.waitForFunction(
      () => !document.getElementById("rb-message").hidden && document.getElementById("rb-result").getAttribute("aria-busy") === "false",
    );
    expect(await frame.evaluate(() => document.getElementById("rb-message").textContent)).toContain("product");

    // Rename …
    await (await frame.waitForSelector('button[aria-label="Rename By day"]'))!.click();
    const name = await control(frame, "New name");
    await name.evaluate((input: any) => input.select());
    await name.type("Orders per day");
    await press(frame, "Save name");
    await frame.waitForFunction(() => document.body.innerText.includes("Renamed to “Orders per day”."));
    // … and delete: nothing happens before the confirmation; Cancel keeps it.
    await (await frame.waitForSelector('button[aria-label="Delete Orders per day"]'))!.click();
    expect(await frame.evaluate(() => document.querySelector(".confirm").textContent)).toContain(
      "Delete “Orders per day”? This cannot be undone.",
    );
    await press(frame, "Cancel");
    expect(await item("Orders per day")).not.toBeNull();
    await (await frame.waitForSelector('button[aria-label="Delete Orders per day"]'))!.click();
    await (await frame.waitForSelector("#rb-delete-ok"))!.click();
    await frame.waitForFunction(() => document.body.innerText.includes("Deleted “Orders per day”."));
    expect(await item("Orders per day")).toBeNull();
    const listed = await fetch(`${server.base}/report-builder/${changing.embed_id}/reports`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then((r) => r.json() as Promise<any>);
    expect(listed.reports.map((r: any) => r.name)).toEqual(["By product"]);
    await page.close();
  }, 60_000);

  it("shows no way to save with a can_save:false token", async () => {
    const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl("&can_save=false") });
    expect(event.type).toBe("report-builder-load");
    const frame = builderFrame(page);
    const buttons = await frame.evaluate(() => [...document.querySelectorAll("button")].map((b: any) => b.textContent.trim()));
    expect(buttons).not.toContain("Save report");
    expect(buttons).not.toContain("Rename");
    expect(buttons).not.toContain("Delete");
    expect(await frame.evaluate(() => document.body.innerText)).not.toContain("Report name");
    expect(buttons).toContain("Download CSV"); // the rest of the builder is there
    await page.close();
  });

  it("at 360 px nothing overflows and every control is reachable by keyboard; screenshots at 360 and 1280 px", async () => {
    for (const width of [360, 1280]) {
      const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl() }, width);
      expect(event.type).toBe("report-builder-load");
      const frame = builderFrame(page);
      await (await control(frame, "Orders")).click();
      await press(frame, "Add group");
      await choose(frame, "Group by", "Product");
      await press(frame, "Add value");
      await press(frame, "Add filter");
      await tableRows(frame, (r) => r[0].includes("Sum of Amount"), "the grouped result");
      // Controls stack above the result at 360 px and sit beside it at 1280 px.
      const layout = await frame.evaluate(() => {
        const c = document.getElementById("rb-controls").getBoundingClientRect();
        const r = document.getElementById("rb-result").getBoundingClientRect();
        return { stacked: r.top >= c.bottom, beside: r.left >= c.right };
      });
      expect(layout).toEqual(width === 360 ? { stacked: true, beside: false } : { stacked: false, beside: true });
      // Nothing wider than the frame or the host page.
      expect(await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Every control is within the frame's width, labelled, and reached by Tab.
      const controls = await frame.evaluate(() => {
        const all = [...document.querySelectorAll("button, select, input, summary, [tabindex='0']")].filter(
          (e: any) => e.offsetParent !== null,
        );
        // A radio group is one Tab stop (arrow keys move inside it): its radios share a probe.
        all.forEach((e: any, i: number) => void e.setAttribute("data-probe", e.type === "radio" ? `radio:${e.name}` : String(i)));
        const stops = new Set(all.map((e: any) => e.getAttribute("data-probe")));
        const unlabelled = all.filter((e: any) => {
          if (e.tagName === "BUTTON" || e.tagName === "SUMMARY") return !e.textContent.trim();
          if (e.getAttribute("aria-label")) return false;
          return !(e.labels?.length && e.labels[0].textContent.trim());
        });
        const outside = all.filter(
          (e: any) => e.getBoundingClientRect().right > window.innerWidth + 0.5 || e.getBoundingClientRect().left < 0,
        );
        return {
          count: stops.size,
          unlabelled: unlabelled.map((e: any) => e.outerHTML.slice(0, 80)),
          outside: outside.map((e: any) => e.outerHTML.slice(0, 80)),
        };
      });
      expect(controls.unlabelled).toEqual([]);
      expect(controls.outside).toEqual([]);
      await frame.evaluate(() => document.querySelector("[data-probe='0']").focus());
      const reached = new Set<string>();
      const hiddenFocus: string[] = [];
      for (let i = 0; i < controls.count * 2 + 10 && reached.size < controls.count; i++) {
        // Focus is visible: every control Tab reaches draws an outline.
        const at = await frame.evaluate(() => ({
          probe: document.activeElement?.getAttribute("data-probe"),
          outline: getComputedStyle(document.activeElement).outlineStyle,
          html: document.activeElement.outerHTML.slice(0, 80),
        }));
        if (at.probe) reached.add(at.probe);
        if (at.probe && i > 0 && at.outline === "none") hiddenFocus.push(at.html);
        await page.keyboard.press("Tab");
      }
      expect(reached.size).toBe(controls.count);
      expect(hiddenFocus).toEqual([]);
      await frame.evaluate(() => (document.activeElement as any).blur());

      const element = await page.$("report-builder");
      await element!.screenshot({ path: join(screenshots, `report-builder-${width}.png`) });
      await page.close();
    }
    if (process.env.UPDATE_DOCS_SCREENSHOTS === "1") {
      for (const width of [360, 1280])
        copyFileSync(join(screenshots, `report-builder-${width}.png`), join(root, "docs", `report-builder-${width}.png`));
    }
    expect(existsSync(join(screenshots, "report-builder-360.png"))).toBe(true);
  }, 90_000);
  it("speaks the view's language: a de-DE builder shows the German catalogue's words; its date filter reads and shows dd.mm.yyyy, the query keeps ISO", async () => {
    const german = CATALOGUES.de;
    for (const width of [1280, 360]) {
      const { page, event } = await mount({ "embed-id": blueprint.embed_id, "token-url": tokenUrl("", "de-DE") }, width);
      expect(event.type).toBe("report-builder-load");
      const frame = builderFrame(page);
      expect(await frame.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(["de-DE", "ltr"]);
      // A legend and a button, named by the German catalogue (control: not the English words).
      expect(await (await control(frame, german["builder.filters"])).evaluate((f: any) => f.tagName)).toBe("FIELDSET");
      expect(german["builder.add_filter"]).not.toBe(CATALOGUES.en["builder.add_filter"]);
      const views: any[] = [];
      page.on("request", (r) => {
        if (r.url().endsWith("/view") && r.method() === "POST") views.push(JSON.parse(r.postData() ?? "{}").query);
      });
      await press(frame, german["builder.add_filter"]);
      await choose(frame, german["builder.filter_on"], "Order day");
      const from = (await frame.waitForSelector("#rb-f0-value"))!;
      // The format shown is the locale's (Intl's), not the browser's: a text field with its pattern.
      expect(await from.evaluate((i: any) => [i.type, i.placeholder])).toEqual(["text", "DD.MM.YYYY"]);
      await from.type("31.02.2026");
      expect(await from.evaluate((i: any) => i.getAttribute("aria-invalid"))).toBe("true");
      await from.click({ count: 3 });
      await from.type("01.03.2026");
      await (await frame.$("#rb-f0-value-to"))!.type("31.03.2026");
      await frame.waitForFunction(() => document.activeElement && !document.querySelector("[aria-invalid=true]"));
      const deadline = Date.now() + 10_000;
      while (!views.some((q) => q.filters?.[0]?.values?.[1] === "2026-03-31") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(views.at(-1).filters).toEqual([{ column: "day", op: "between", values: ["2026-03-01", "2026-03-31"] }]);
      await frame.evaluate(() => (document.activeElement as any).blur());
      await frame.waitForFunction(() => document.getElementById("rb-result").getAttribute("aria-busy") !== "true");
      await page.screenshot({ path: join(screenshots, `report-builder-de-DE-${width}.png`), fullPage: true });
      await page.close();
    }
  }, 60_000);
});
