// Driving the vendor's console (docs/console.md) in a real Chromium, shared by its e2e tests:
// everything found by role and accessible name (never by class name), waits on conditions.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, ElementHandle, Page } from "puppeteer-core";
import { adminClient } from "../../scripts/lib/admin-client.mjs";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { devApi } from "./service-api";

// These callbacks run in the browser (page.evaluate); the project's types are the Workers'.
declare const document: any;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const overlaps = (a: any, b: any) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * A fresh `npm start` on a free port, its admin and API clients, and a Chromium with one page at
 * 1280 x 900; the folder `screenshots` made.
 */
export async function openConsole(screenshots: string) {
  const server = await startLocalServer({ port: await freePort() });
  const request = adminClient(server.base, server.vars.ADMIN_TOKEN);
  const api = devApi(server.base, server.vars.DEV_API_TOKEN);
  const browser: Browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  mkdirSync(screenshots, { recursive: true });
  return { server, request, api, browser, page };
}

/** The helpers bound to the console's page (looked up on each call: a test may open another). */
export function consolePage(current: () => Page, context: () => { browser: Browser; api: ReturnType<typeof devApi>; screenshots: string }) {
  async function byRole(role: string, name: string, within?: Page | ElementHandle): Promise<ElementHandle> {
    const found = await (within ?? current()).waitForSelector(`::-p-aria([role="${role}"][name="${name}"])`, { timeout: 15_000 });
    if (!found) throw new Error(`no ${role} named ${name}`);
    return found as ElementHandle;
  }

  async function waitForPreview(contains: string, timeout = 10_000): Promise<number> {
    const started = Date.now();
    await current().waitForFunction(
      (text: string) => {
        const body = document.querySelector("iframe[title=Preview]")?.contentDocument?.body;
        return body?.getAttribute("data-render-complete") === "true" && body.innerText.includes(text);
      },
      { timeout, polling: 20 },
      contains,
    );
    return Date.now() - started;
  }

  /** The KPI of panel `id` as the preview frame shows it. */
  const previewKpi = (id: string) =>
    current().evaluate(
      (panel: string) =>
        document
          .querySelector("iframe[title=Preview]")
          .contentDocument.querySelector(`[data-panel-id="${panel}"] .kpi-value`)
          ?.textContent.trim(),
      id,
    );

  /** The KPI of panel `id` on the customer's real embed page (production). */
  async function embedKpi(providedId: string, id: string): Promise<{ value: string; text: string }> {
    const { browser, api } = context();
    const minted = await api("/api/generate_embed_token/", {
      provided_id: providedId,
      dashboard_embed_id: "sales-overview",
      environment: "production",
    });
    const embed = await browser.newPage();
    await embed.goto(minted.body.embed_url.replace("http://localhost", "http://127.0.0.1"));
    const value = await embed.$eval(`[data-panel-id="${id}"] .kpi-value`, (e: any) => e.textContent.trim());
    const text = await embed.evaluate(() => document.body.innerText);
    await embed.close();
    return { value, text };
  }

  /** The screen at each width (360 px only where asked: the sign-in form and the table); `fullPage: false` for what covers the window (a modal dialog). */
  async function shoot(name: string, widths = [360, 1280, 1440], fullPage = true): Promise<void> {
    const page = current();
    for (const width of widths) {
      await page.setViewport({ width, height: 900 });
      await sleep(150);
      await page.screenshot({ path: join(context().screenshots, `${name}-${width}.png`), fullPage });
    }
    await page.setViewport({ width: 1280, height: 900 });
  }

  async function setField(label: string, value: string, within?: ElementHandle): Promise<void> {
    const control = await byRole("textbox", label, within ?? current());
    await control.evaluate((e: any, v: string) => {
      e.value = v;
      e.dispatchEvent(new Event("input", { bubbles: true }));
    }, value);
  }

  async function chooseCustomer(providedId: string): Promise<void> {
    const page = current();
    const box = await byRole("combobox", "Preview as customer");
    await box.click({ count: 3 });
    await box.type(providedId);
    await page.waitForFunction(
      (id: string) => [...document.querySelectorAll("[role=option]")].some((o: any) => o.textContent.includes(`(${id})`)),
      {},
      providedId,
    );
    await page.keyboard.press("Enter");
  }

  return { byRole, waitForPreview, previewKpi, embedKpi, shoot, setField, chooseCustomer };
}
