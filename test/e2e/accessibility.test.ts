// Every page the service serves, checked by axe-core in a real browser (puppeteer-core on the
// local Chromium) against the real `npm start`, with the WCAG 2.0/2.1/2.2 A and AA rules
// (docs/accessibility.md): the embed page, the share page, the report builder and the
// unsubscribe pages in four presentations (the built-in theme, its dark palette, an accepted
// custom theme, ar-EG) at 360 and 1280 px, the embed page with its Subscribe control open; the
// error pages at both widths; the API reference (/docs) and the vendor's
// console (sign-in, dashboards, editor); and a control page with known
// violations, which the same check must report (so a check that saw nothing could not pass).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { parseMime } from "../helpers/mime";
import { axeViolations, describeViolations } from "./axe";

declare const document: any;

const shots = join(import.meta.dirname, "..", "..", "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let browser: Browser;

async function api(path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** An accepted custom theme: dark, its own accent and series, muted text at the 3:1 the theme rules allow. */
const CUSTOM_THEME = {
  name: "Axe night",
  theme: {
    mode: "dark",
    colors: {
      background: "#101418",
      surface: "#1a2027",
      text: "#f1f5f9",
      muted_text: "#8593a3",
      border: "#2c3640",
      accent: "#f97316",
      series: ["#f97316", "#22d3ee", "#a3e635", "#e879f9"],
    },
    decals: true,
  },
};

/** The report builder's tables: one customer's orders. */
const BLUEPRINT_TABLES = [
  {
    table_name: "orders",
    schema_id: 1,
    dataset_name: "Orders",
    description: "One row per order.",
    query: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
    columns: [
      { name: "day", type: "DATE", display_name: "Order day" },
      { name: "product", type: "STRING", display_name: "Product" },
      { name: "amount", type: "FLOAT", display_name: "Amount", can_be_grouped: false },
    ],
  },
];

/** The built-in dark palette: a theme that names only its mode (every color from the dark palette). */
const DARK_PALETTE_THEME = { name: "Axe dark palette", theme: { mode: "dark" } };

/** The presentations every customer-facing page is checked in: the built-in themes, an accepted custom theme, ar-EG. */
const PRESENTATIONS: [string, { theme?: string; locale: string }][] = [
  ["the built-in theme", { locale: "en-US" }],
  ["the built-in dark palette", { locale: "en-US", theme: DARK_PALETTE_THEME.name }],
  ["an accepted custom theme", { locale: "en-US", theme: CUSTOM_THEME.name }],
  ["ar-EG", { locale: "ar-EG" }],
];

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort() });
  browser = await launchBrowser();
  mkdirSync(shots, { recursive: true });
  for (const theme of [CUSTOM_THEME, DARK_PALETTE_THEME]) {
    const created = await api("/api/create_theme/", theme);
    if (created.success !== 1) throw new Error(`create_theme: ${JSON.stringify(created)}`);
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens `url` at `width` and answers axe's violations there. */
async function check(url: string, width: number, ready?: (page: Page) => Promise<void>) {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width, height: 900 });
    const response = await page.goto(url, { waitUntil: "load" });
    await ready?.(page);
    return { status: response?.status(), violations: await axeViolations(page), page };
  } catch (error) {
    await page.close();
    throw error;
  }
}

async function expectClean(url: string, width: number, ready?: (page: Page) => Promise<void>, shot?: string): Promise<number | undefined> {
  const { status, violations, page } = await check(url, width, ready);
  if (shot) await screenshot(page, shot);
  await page.close();
  expect(violations, `${url} at ${width} px:\n${describeViolations(violations)}`).toEqual([]);
  return status;
}

/**
 * The whole page as a viewer sees it, into test-results/. The viewport grows to the page
 * (captureBeyondViewport off): Chromium's capture beyond the viewport drew a right-to-left page
 * shorter than the viewport shifted, cut at its right edge, which no viewer sees.
 */
async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: join(shots, file) as `${string}.png`, fullPage: true, captureBeyondViewport: false });
}

/** A file name for a screenshot of `what` in `presentation` at `width`. */
const shotName = (what: string, presentation: string, width: number) => `axe-${what}-${presentation.replace(/\W+/g, "-")}-${width}.png`;

/**
 * The share and unsubscribe links of the e-mail a report schedule (`target`: what it sends, to
 * whom) sends when run now, read from the local outbox.
 */
async function scheduledMail(target: Record<string, unknown>): Promise<{ share: string; unsubscribe: string }> {
  const email = `axe-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const created = await api("/api/create_report_schedule/", { ...target, cron: "0 6 1 1 *", recipients: [email], subject: "Axe numbers" });
  expect(created.success, JSON.stringify(created)).toBe(1);
  const ran = await api("/api/run_report_schedule/", { id: created.schedule.id });
  expect(ran.success, JSON.stringify(ran)).toBe(1);
  let raw = "";
  for (const deadline = Date.now() + 90_000; Date.now() < deadline && !raw; ) {
    const list = await (await fetch(`${server.base}/_dev/outbox`)).text();
    const href = list
      .split("<tr>")
      .find((r) => r.includes(email))
      ?.match(/href="(\/_dev\/outbox\/[^"]+)"/)?.[1];
    if (href) raw = await (await fetch(`${server.base}${href}`)).text();
    else await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(raw, "no e-mail in the outbox").not.toBe("");
  const html = parseMime(raw).parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))?.body ?? "";
  const share = /href="(http[^"]+\/share\/[0-9a-f]{64})"/.exec(html)?.[1] ?? "";
  const unsubscribe = raw.match(/^List-Unsubscribe: <([^>]+)>$/m)?.[1] ?? "";
  expect(share, "no share link in the e-mail").not.toBe("");
  expect(unsubscribe, "no unsubscribe link in the e-mail").not.toBe("");
  const local = (link: string) => link.replace(/^https?:\/\/[^/]+/, server.base);
  return { share: local(share), unsubscribe: local(unsubscribe) };
}

const rendered = (page: Page) => page.waitForSelector("body[data-render-complete=true]").then(() => undefined);

describe("axe-core finds no WCAG 2.x A/AA violation", () => {
  const presentations = PRESENTATIONS.map(([name, choice]): [string, Record<string, unknown>] => [
    name,
    { provided_id: "acme", ...choice },
  ]);
  for (const dashboard of ["sales-overview", "monthly-report"]) {
    it.each(presentations)(
      `on the embed page of ${dashboard} in %s, its Subscribe control open, at 360 and 1280 px`,
      async (_, choice) => {
        const minted = await api("/api/generate_embed_token/", {
          ...choice,
          dashboard_embed_id: dashboard,
          user_email: "viewer@acme.example",
        });
        expect(minted.success, JSON.stringify(minted)).toBe(1);
        for (const width of [360, 1280]) {
          const status = await expectClean(`${minted.embed_url}&width=${width}`, width, async (page) => {
            await rendered(page);
            await page.click("#subscribe summary");
            await page.waitForFunction(() => (document.querySelector("#subscribe ul")?.children.length ?? 0) > 0);
          });
          expect(status).toBe(200);
        }
      },
      90_000,
    );
  }

  it("on the report builder in every presentation, at 360 and 1280 px", async () => {
    const created = await api("/api/create_blueprint/", { customer_id: "acme", blueprint_name: "Axe sales", tables: BLUEPRINT_TABLES });
    expect(created.success, JSON.stringify(created)).toBe(1);
    for (const [, choice] of presentations) {
      const minted = await api("/api/generate_embed_token/", { ...choice, blueprint_id: created.blueprint_id });
      expect(minted.success, JSON.stringify(minted)).toBe(1);
      for (const width of [360, 1280]) {
        const status = await expectClean(minted.embed_url, width, async (page) => {
          await page.waitForSelector("select", { timeout: 20_000 });
          await page.waitForNetworkIdle({ idleTime: 500 });
        });
        expect(status).toBe(200);
      }
    }
  }, 180_000);

  it.each(PRESENTATIONS)(
    "on the share pages (a dashboard, a saved report) and the unsubscribe pages (asking, done) of scheduled e-mails in %s, at 360 and 1280 px",
    async (name, choice) => {
      // The share page shows its customer's view and the unsubscribe page the rule's, else the
      // customer's: a demo customer with rows of its own, put in the presentation before any page
      // of it is read (acme is the built-in theme in en-US as seeded).
      const customer = ["acme", "acme-berlin", "acme-paris", "globex"][PRESENTATIONS.findIndex(([n]) => n === name)];
      if (customer !== "acme") {
        const updated = await api("/api/update_customer/", { provided_id: customer, theme: choice.theme ?? null, locale: choice.locale });
        expect(updated.success, JSON.stringify(updated)).toBe(1);
      }
      const { share, unsubscribe } = await scheduledMail({ dashboard_embed_id: "sales-overview", provided_id: customer });
      const drawnIn = async (page: Page) => {
        // The page is drawn in the schedule's presentation, not the built-in one.
        const attributes = await page.evaluate(() => [document.documentElement.lang, document.documentElement.dataset.theme]);
        expect(attributes[0]).toBe(choice.locale);
        if (choice.theme) expect(attributes[1]).not.toBe("builtin");
      };
      for (const width of [360, 1280]) {
        const shareStatus = await expectClean(
          `${share}?width=${width}`,
          width,
          async (page) => {
            await rendered(page);
            await drawnIn(page);
          },
          shotName("share", name, width),
        );
        expect(shareStatus).toBe(200);
        expect(await expectClean(unsubscribe, width, drawnIn, shotName("unsubscribe", name, width))).toBe(200);
      }
      // The page after its button: "You are unsubscribed" (the link shows it from then on).
      for (const width of [360, 1280]) {
        const { page } = await check(unsubscribe, width);
        if (width === 360) await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button")]);
        expect(await page.$("button")).toBeNull();
        await drawnIn(page);
        const violations = await axeViolations(page);
        await screenshot(page, shotName("unsubscribed", name, width));
        await page.close();
        expect(violations, `the unsubscribed page at ${width} px:\n${describeViolations(violations)}`).toEqual([]);
      }
      // The share page of a saved report (the builder's report, drawn as its one-panel page).
      const blueprint = await api("/api/create_blueprint/", {
        customer_id: customer,
        blueprint_name: "Axe report",
        tables: BLUEPRINT_TABLES,
      });
      expect(blueprint.success, JSON.stringify(blueprint)).toBe(1);
      const minted = await api("/api/generate_embed_token/", { provided_id: customer, blueprint_id: blueprint.blueprint_id });
      expect(minted.success, JSON.stringify(minted)).toBe(1);
      const embedId = new URL(minted.embed_url).pathname.split("/").filter(Boolean).pop();
      const saved = await fetch(`${server.base}/report-builder/${embedId}/reports`, {
        method: "POST",
        headers: { Authorization: `Bearer ${minted.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          name: "Axe revenue by product",
          query: { dataset: "Orders", group_by: [{ column: "product" }], values: [{ aggregate: "sum", column: "amount" }] },
          chart: { type: "bar", x: "product", y: ["sum_amount"] },
        }),
      }).then((r) => r.json() as Promise<any>);
      expect(saved.report?.id, JSON.stringify(saved)).toBeTruthy();
      const report = await scheduledMail({ report_id: saved.report.id, provided_id: customer });
      for (const width of [360, 1280]) {
        const status = await expectClean(`${report.share}?width=${width}`, width, drawnIn, shotName("share-report", name, width));
        expect(status).toBe(200);
      }
    },
    180_000,
  );

  it("on the error pages (a refused token, an unknown share link, an unknown unsubscribe link) at 360 and 1280 px", async () => {
    for (const width of [360, 1280]) {
      expect(await expectClean(`${server.base}/embed/sales-overview?token=not-a-token`, width)).toBe(401);
      expect(await expectClean(`${server.base}/share/${"0".repeat(64)}`, width)).toBe(404);
      expect(await expectClean(`${server.base}/unsubscribe/${"0".repeat(64)}`, width)).toBe(404);
    }
  }, 60_000);
});

describe("axe-core finds no WCAG 2.x A/AA violation on the vendor's pages", () => {
  it("on the API reference at /docs (our own page)", async () => {
    expect(await expectClean(`${server.base}/docs`, 1280)).toBe(200);
  }, 60_000);

  it("on the console: the sign-in form (also with its refusal shown), the dashboards table and the editor, at 360 and 1280 px", async () => {
    const page = await browser.newPage();
    try {
      const clean = async (what: string) => {
        for (const width of [360, 1280]) {
          await page.setViewport({ width, height: 900 });
          const violations = await axeViolations(page);
          expect(violations, `${what} at ${width} px:\n${describeViolations(violations)}`).toEqual([]);
        }
      };
      const named = (role: string, name: string) =>
        page.waitForSelector(`::-p-aria([role="${role}"][name="${name}"])`, { timeout: 15_000 });
      await page.goto(`${server.base}/console/`, { waitUntil: "load" });
      const token = await named("textbox", "Admin token");
      await clean("the sign-in form");
      await token!.type("not-the-admin-token");
      await (await named("button", "Sign in"))!.click();
      await page.waitForFunction(() => document.querySelector("[role=alert]")?.textContent.includes("not the admin token"));
      await clean("the sign-in form with its refusal");
      await token!.evaluate((e: any) => (e.value = ""));
      await token!.type(server.vars.ADMIN_TOKEN);
      await Promise.all([page.waitForNavigation(), (await named("button", "Sign in"))!.click()]);
      await named("table", "Dashboards");
      await page.waitForFunction(() => document.body.innerText.includes("sales-overview"));
      await clean("the dashboards table");
      await (await named("link", "Sales overview"))!.click();
      await named("listbox", "Panels");
      await named("option", "Revenue");
      await page.waitForNetworkIdle({ idleTime: 500 });
      await clean("the editor");
    } finally {
      await page.close();
    }
  }, 120_000);
});

describe("the check itself (control)", () => {
  it("reports the known violations of a control page: an image without a name, text without contrast, an unnamed chart", async () => {
    const page = await browser.newPage();
    await page.setContent(
      `<!doctype html><html lang="en"><head><title>Control</title></head><body><main>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p style="color:#bbb;background:#fff">Grey on white</p>
<svg role="img" width="40" height="40"><rect width="40" height="40" fill="#4f46e5"/></svg>
</main></body></html>`,
    );
    const violations = await axeViolations(page);
    await page.close();
    expect(violations.map((v) => v.id).sort()).toEqual(["color-contrast", "image-alt", "svg-img-alt"]);
  });
});
