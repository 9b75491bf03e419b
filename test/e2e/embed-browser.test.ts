// <dashboard-embed> in a real browser (puppeteer-core on the local Chromium): a vendor page on
// its own origin with its own token-url endpoint, the service from the real `npm start`.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Frame, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../../scripts/lib/embed-host.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { devApi } from "./service-api";

// These callbacks run in the browser (page.evaluate); the project's types are the Workers'.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;
declare const MouseEvent: any;

const screenshots = join(import.meta.dirname, "..", "..", "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let host: Awaited<ReturnType<typeof startEmbedHost>>;
let browser: Browser;

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort() });
  host = await startEmbedHost({ apiBase: server.base, apiToken: server.vars.DEV_API_TOKEN });
  browser = await launchBrowser();
  mkdirSync(screenshots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await server?.stop();
});

/** Opens the vendor page and inserts an element; resolves with the first event it fires. */
async function mount(attributes: Record<string, string>): Promise<{ page: Page; event: { type: string; detail: any; ms: number } }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${host.origin}/`);
  const event = await page.evaluate((attrs) => {
    return new Promise<{ type: string; detail: any; ms: number }>((resolve) => {
      const element = document.createElement("dashboard-embed");
      for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
      const started = performance.now();
      for (const type of ["dashboard-load", "dashboard-error"]) {
        element.addEventListener(type, (e: any) => resolve({ type, detail: (e as CustomEvent).detail, ms: performance.now() - started }), {
          once: true,
        });
      }
      document.getElementById("app")!.appendChild(element);
    });
  }, attributes);
  return { page, event };
}

function dashboardFrame(page: Page): Frame {
  const frame = page.frames().find((f) => f.url().includes("/embed/"));
  if (!frame) throw new Error("no dashboard frame");
  return frame;
}

/** Resolves with the element's next event (after `action`). */
async function nextEvent(page: Page, action: string): Promise<{ type: string; detail: any }> {
  return page.evaluate((code) => {
    return new Promise<{ type: string; detail: any }>((resolve) => {
      const element = document.querySelector("dashboard-embed")!;
      for (const type of ["dashboard-load", "dashboard-error"]) {
        element.addEventListener(type, (e: any) => resolve({ type, detail: (e as CustomEvent).detail }), { once: true });
      }
      new Function("element", code)(element);
    });
  }, action);
}

// acme-berlin reads German (de-DE); these tests read the dashboard's English words, so the
// vendor's endpoint asks for en-US (a token's locale wins over the customer's).
const tokenUrl = (expiresIn = 900) => `/token?customer=acme-berlin&dashboard=sales-overview&expires_in=${expiresIn}&locale=en-US`;

describe("<dashboard-embed> in a browser", () => {
  it("mounts with token-url, shows the customer's data and takes the content's height", async () => {
    const { page, event } = await mount({ "embed-id": "sales-overview", "token-url": tokenUrl() });
    expect(event.type).toBe("dashboard-load");
    const frame = dashboardFrame(page);
    expect(frame.url()).toContain("token=");
    expect(frame.url()).not.toContain("customer_token");
    const text = await frame.evaluate(() => document.body.innerText);
    expect(text).toContain("Acme Berlin");
    expect(await frame.evaluate(() => document.body.dataset.renderComplete)).toBe("true");

    // The iframe is exactly as tall as the dashboard's content (not a fixed default).
    const contentHeight = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    const frameHeight = await page.evaluate(() => document.querySelector("dashboard-embed iframe")!.getBoundingClientRect().height);
    expect(contentHeight).toBeGreaterThan(400);
    expect(Math.abs(frameHeight - contentHeight)).toBeLessThanOrEqual(1);
    expect(event.detail.height).toBe(contentHeight);
    expect(await frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1)).toBe(true);
    await page.screenshot({ path: join(screenshots, "embed-host.png"), fullPage: true });
    await page.close();
  });

  it("follows the content when it changes height", async () => {
    const { page } = await mount({ "embed-id": "sales-overview", "token-url": tokenUrl() });
    const frame = dashboardFrame(page);
    const before = await page.evaluate(() => document.querySelector("dashboard-embed iframe")!.getBoundingClientRect().height);
    await frame.evaluate(() => {
      const extra = document.createElement("div");
      extra.style.height = "300px";
      document.querySelector("main")!.appendChild(extra);
    });
    await page.waitForFunction(
      (h) => document.querySelector("dashboard-embed iframe")!.getBoundingClientRect().height >= h + 299,
      {},
      before,
    );
    await page.close();
  });

  it("shows new values when the variables attribute changes", async () => {
    const { page } = await mount({ "embed-id": "sales-overview", "token-url": tokenUrl(), variables: '{"since":"2026-01-01"}' });
    expect(await dashboardFrame(page).evaluate(() => document.body.innerText)).toContain("since 2026-01-01");
    const event = await nextEvent(page, `element.setAttribute("variables", '{"since":"2026-03-01"}')`);
    expect(event.type).toBe("dashboard-load");
    expect(await dashboardFrame(page).evaluate(() => document.body.innerText)).toContain("since 2026-03-01");
    await page.close();
  });

  it("passes its width to the page and reloads for a new width when it is resized", async () => {
    const { page, event } = await mount({ "embed-id": "sales-overview", "token-url": tokenUrl() });
    expect(event.type).toBe("dashboard-load");
    const width = (url: string) => new URL(url).searchParams.get("width");
    const elementWidth = await page.evaluate(() => Math.round(document.querySelector("dashboard-embed").getBoundingClientRect().width));
    expect(width(dashboardFrame(page).url())).toBe(String(elementWidth));
    const next = await nextEvent(page, `element.style.display = "block"; element.style.width = "480px"`);
    expect(next.type).toBe("dashboard-load");
    expect(width(dashboardFrame(page).url())).toBe("480");
    expect(await dashboardFrame(page).evaluate(() => document.querySelector("main").className)).toContain("stacked");
    await page.close();
  });

  it("refreshes an expiring token through token-url without replacing the document", async () => {
    const calls = host.tokenCalls.length;
    const { page, event } = await mount({ "embed-id": "sales-overview", "token-url": tokenUrl(10) });
    expect(event.type).toBe("dashboard-load");
    const frame = dashboardFrame(page);
    await frame.evaluate(() => ((window as any).sameDocument = "yes"));
    const first = host.tokenCalls[calls].token;

    // The component asks for a new token before the 10 s one expires …
    const deadline = Date.now() + 15_000;
    while (host.tokenCalls.length < calls + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(host.tokenCalls.length).toBeGreaterThanOrEqual(calls + 2);
    expect(host.tokenCalls[calls + 1].at).toBeLessThan(Date.parse(host.tokenCalls[calls].expires_at));
    expect(host.tokenCalls[calls + 1].token).not.toBe(first);
    // … and the dashboard document stayed where it was.
    expect(await frame.evaluate(() => (window as any).sameDocument)).toBe("yes");

    // Once the first token has expired, a variables change loads with the fresh one.
    const wait = Date.parse(host.tokenCalls[calls].expires_at) - Date.now() + 500;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const next = await nextEvent(page, `element.setAttribute("variables", '{"since":"2026-02-01"}')`);
    expect(next.type).toBe("dashboard-load");
    const url = dashboardFrame(page).url();
    expect(url).not.toContain(first);
    expect(await dashboardFrame(page).evaluate(() => document.body.innerText)).toContain("since 2026-02-01");
    await page.close();
  }, 60_000);

  // embed.js upgrading elements already in the page calls attributeChangedCallback, then
  // connectedCallback: one token fetch per element, whichever order the page has.
  for (const mode of ["before", "after", "defer"]) {
    it(`fetches one token per element with embed.js ${mode === "defer" ? "deferred" : `${mode} the elements`}`, async () => {
      const page = await browser.newPage();
      const tokenRequests: string[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === "/token") tokenRequests.push(request.url());
      });
      await page.evaluateOnNewDocument(() => {
        window.loads = [];
        window.addEventListener("dashboard-load", (e: any) => window.loads.push(e.target.id), true);
      });
      await page.goto(`${host.origin}/order?mode=${mode}&token_url=${encodeURIComponent(tokenUrl())}`);
      await page.waitForFunction(() => window.loads.length >= 2, { timeout: 30_000 });
      // A second fetch would start at once; give a late one time to show.
      await new Promise((r) => setTimeout(r, 1000));
      expect((await page.evaluate(() => window.loads)).sort()).toEqual(["one", "two"]);
      expect(tokenRequests).toHaveLength(2);
      await page.close();
    });
  }

  it("fires dashboard-error with status 401 for a bad token", async () => {
    const { page, event } = await mount({ "embed-id": "sales-overview", "token-url": "/bad-token" });
    expect(event).toMatchObject({ type: "dashboard-error", detail: { status: 401 } });
    expect(await dashboardFrame(page).evaluate(() => document.body.dataset.renderComplete)).toBeUndefined();
    await page.close();
  });

  it("fires dashboard-error with the endpoint's status when token-url refuses", async () => {
    const page = await browser.newPage();
    await page.goto(`${host.origin}/`);
    await page.deleteCookie({ name: "vendor_session", url: host.origin });
    const event = await page.evaluate((url) => {
      return new Promise<{ type: string; detail: any }>((resolve) => {
        const element = document.createElement("dashboard-embed");
        element.setAttribute("embed-id", "sales-overview");
        element.setAttribute("token-url", url);
        element.addEventListener("dashboard-error", (e: any) => resolve({ type: "dashboard-error", detail: (e as CustomEvent).detail }));
        element.addEventListener("dashboard-load", (e: any) => resolve({ type: "dashboard-load", detail: (e as CustomEvent).detail }));
        document.body.appendChild(element);
      });
    }, tokenUrl());
    expect(event).toMatchObject({ type: "dashboard-error", detail: { status: 401 } });
    await page.close();
  });
});

// Themes (docs/theming.md) on the demo's themes, which `npm start` creates: "Acme night" (dark,
// its own WOFF2 font "Acme Sans" and a logo) and "Acme light". Screenshots at 360 and 1280 px.
describe("themes in a browser", () => {
  const NIGHT = { background: "rgb(11, 16, 32)", text: "rgb(232, 236, 248)", series: "rgb(124, 156, 255)" };
  const BUILTIN = { background: "rgb(244, 246, 251)", series: "rgb(79, 70, 229)" };

  /** The demo dashboard opened on its own in a theme (none: the customer's, the built-in). */
  async function themedPage(theme: string | undefined, width: number): Promise<Page> {
    const minted = await devApi(server.base, server.vars.DEV_API_TOKEN)("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      locale: "en-US",
      ...(theme ? { theme } : {}),
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.goto(`${minted.body.embed_url}&width=${width}`, { waitUntil: "load" });
    return page;
  }

  /** What the page wears: computed colors and font, the first series' fill, the fonts loaded, the logo. */
  function look(page: Page) {
    return page.evaluate(async () => {
      await document.fonts.ready;
      const body = getComputedStyle(document.body);
      const chart = document.querySelector("section.panel svg");
      const fills = [...(chart?.querySelectorAll("path") ?? [])]
        .map((path: any) => getComputedStyle(path).fill)
        .filter((fill: string) => fill !== "none" && fill !== "rgba(0, 0, 0, 0)");
      const logo = document.querySelector("img.cd-logo") as any;
      return {
        theme: document.documentElement.dataset.theme,
        background: getComputedStyle(document.documentElement).backgroundColor,
        text: body.color,
        font: body.fontFamily,
        firstSeries: fills[0],
        fontLoaded: [...document.fonts].some((f: any) => f.family.replace(/"/g, "") === "Acme Sans" && f.status === "loaded"),
        fontUsable: document.fonts.check('14px "Acme Sans"'),
        logo: logo ? { loaded: logo.complete && logo.naturalWidth > 0, src: logo.getAttribute("src") } : null,
      };
    });
  }

  it("draws the page in the dark theme: background, text, font (its WOFF2 loaded), logo and the first series; control: built-in", async () => {
    for (const width of [1280, 360]) {
      const page = await themedPage("Acme night", width);
      const night = await look(page);
      expect(night).toMatchObject({ theme: "Acme night", background: NIGHT.background, text: NIGHT.text, firstSeries: NIGHT.series });
      expect(night.font).toContain("Acme Sans");
      expect(night.fontLoaded && night.fontUsable).toBe(true);
      expect(night.logo).toMatchObject({ loaded: true, src: expect.stringMatching(/^\/theme-assets\/[0-9a-f]{64}$/) });
      await page.screenshot({ path: join(screenshots, `theme-night-${width}.png`), fullPage: true });
      await page.close();

      const light = await themedPage("Acme light", width);
      expect(await look(light)).toMatchObject({ theme: "Acme light", firstSeries: "rgb(15, 118, 110)", logo: { loaded: true } });
      await light.screenshot({ path: join(screenshots, `theme-light-${width}.png`), fullPage: true });
      await light.close();

      const plain = await themedPage(undefined, width);
      const builtin = await look(plain);
      expect(builtin).toMatchObject({ theme: "builtin", background: BUILTIN.background, firstSeries: BUILTIN.series, logo: null });
      expect(builtin.fontLoaded).toBe(false);
      await plain.screenshot({ path: join(screenshots, `theme-builtin-${width}.png`), fullPage: true });
      await plain.close();
    }
  }, 120_000);

  it("gives <dashboard-embed>'s iframe the theme's background in a dark host page: from the attribute at once, then from the page", async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${host.origin}/`);
    await page.evaluate(() => {
      document.body.style.background = "#0b1020";
      document.body.style.color = "#e8ecf8";
    });
    // The attribute's color is on the iframe before any page has arrived.
    const before = await page.evaluate(async () => {
      const element = document.createElement("dashboard-embed");
      element.setAttribute("embed-id", "sales-overview");
      element.setAttribute("token", "not-yet-a-token");
      element.setAttribute("background", "#0b1020");
      document.getElementById("app")!.appendChild(element);
      for (let i = 0; i < 5 && !element.querySelector("iframe"); i++) await null;
      const frame = element.querySelector("iframe");
      const color = frame ? getComputedStyle(frame).backgroundColor : null;
      element.remove();
      return color;
    });
    expect(before).toBe(NIGHT.background);

    // Without the attribute: the page's own background once it is ready (control: built-in theme).
    const frameBackground = async (theme: string | null) => {
      const event = await page.evaluate(
        (url) => {
          return new Promise<string>((resolve) => {
            const element = document.createElement("dashboard-embed");
            element.setAttribute("embed-id", "sales-overview");
            element.setAttribute("token-url", url);
            element.addEventListener("dashboard-load", () => resolve("dashboard-load"), { once: true });
            element.addEventListener("dashboard-error", () => resolve("dashboard-error"), { once: true });
            document.getElementById("app")!.replaceChildren(element);
          });
        },
        `${tokenUrl()}${theme ? `&theme=${encodeURIComponent(theme)}` : ""}`,
      );
      expect(event).toBe("dashboard-load");
      return page.evaluate(() => getComputedStyle(document.querySelector("dashboard-embed iframe")!).backgroundColor);
    };
    expect(await frameBackground("Acme night")).toBe(NIGHT.background);
    await page.screenshot({ path: join(screenshots, "theme-element-dark-host.png"), fullPage: true });
    expect(await frameBackground(null)).toBe(BUILTIN.background);
    await page.close();
  }, 60_000);
});

describe("clicks in a browser (on_click: filter, open, emit)", () => {
  /** Mounts the demo dashboard and records every dashboard-click and dashboard-variables event in `window.__events`. */
  async function mountRecording(attributes: Record<string, string>, width = 1200) {
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.goto(`${host.origin}/`);
    await page.evaluate((attrs) => {
      return new Promise<void>((resolve) => {
        const element = document.createElement("dashboard-embed");
        for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
        window.__events = [];
        for (const type of ["dashboard-click", "dashboard-variables"])
          element.addEventListener(type, (e: any) => window.__events.push({ type, detail: e.detail }));
        element.addEventListener("dashboard-load", () => resolve(), { once: true });
        document.getElementById("app")!.appendChild(element);
      });
    }, attributes);
    await dashboardFrame(page).waitForSelector("[data-pick]");
    return page;
  }

  const events = (page: Page) => page.evaluate(() => window.__events as { type: string; detail: any }[]);
  const waitForEvents = (page: Page, count: number) => page.waitForFunction((n) => window.__events.length >= n, {}, count);
  /** The frame after it navigated to a page whose URL passes `test`, its marks ready. */
  async function frameWhen(page: Page, test: (url: string) => boolean): Promise<Frame> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const frame = page.frames().find((f) => f.url().includes("/embed/") && test(f.url()));
      if (frame) {
        try {
          await frame.waitForSelector("body[data-render-complete]", { timeout: 2000 });
          return frame;
        } catch {
          /* navigating */
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the frame never got there");
  }
  /** Clicks a mark (a pie slice's centre may be its hole: the click is dispatched on the element). */
  const clickMark = (frame: Frame, selector: string) =>
    frame.evaluate((s) => document.querySelector(s)!.dispatchEvent(new MouseEvent("click", { bubbles: true })), selector);

  const slice = 'section[data-panel-id="by_product"] svg path[data-pick]';

  it("a click on a pie slice posts dashboard-click (detail checked), filters the page, a second click clears it; dashboard-variables follows", async () => {
    const page = await mountRecording({ "embed-id": "sales-overview", "token-url": tokenUrl() });
    let frame = dashboardFrame(page);
    const state = await frame.evaluate(() => JSON.parse(document.getElementById("dashboard-clicks").textContent));
    const index = await frame.evaluate((s) => Number(document.querySelector(s).getAttribute("ecmeta_data_index")), slice);
    const row = state.panels.by_product.rows[index];
    expect(await frame.evaluate((s) => getComputedStyle(document.querySelector(s)).cursor, slice)).toBe("pointer");
    expect(await frame.evaluate((s) => document.querySelector(s).getAttribute("tabindex"), slice)).toBe("0");

    await clickMark(frame, slice);
    await waitForEvents(page, 2);
    const [click, variables] = await events(page);
    expect(click).toEqual({
      type: "dashboard-click",
      detail: { source: "dashboard-embed", type: "click", panel_id: "by_product", column: "product", value: row.product, row },
    });
    expect(variables.type).toBe("dashboard-variables");
    expect(variables.detail.variables).toEqual({ since: "2026-01-01", product: row.product });
    frame = await frameWhen(page, (url) => url.includes("var_product="));
    expect(await frame.evaluate(() => document.body.innerText)).toContain(`your sales of ${row.product} since`);
    // The selected slice is marked pressed (highlighted), the others dimmed.
    expect(await frame.evaluate((s) => document.querySelector(s).getAttribute("aria-pressed"), slice)).toBe("true");
    expect(await frame.evaluate(() => document.querySelector('section[data-panel-id="by_product"]').classList.contains("picking"))).toBe(
      true,
    );

    await clickMark(frame, slice);
    await waitForEvents(page, 4);
    expect((await events(page))[3].detail.variables).toEqual({ since: "2026-01-01", product: "All products" });
    frame = await frameWhen(page, (url) => !url.includes("var_product="));
    expect(await frame.evaluate(() => document.body.innerText)).toContain("your sales of All products since");
    await page.close();
  }, 60_000);

  it("a variable the token locks is not changed by a click, and the click is still posted", async () => {
    const locked = `${tokenUrl()}&variables=${encodeURIComponent('{"product":"Seats"}')}`;
    const page = await mountRecording({ "embed-id": "sales-overview", "token-url": locked });
    const frame = dashboardFrame(page);
    const before = frame.url();
    await clickMark(frame, slice);
    await waitForEvents(page, 1);
    expect((await events(page))[0].detail).toMatchObject({ type: "click", panel_id: "by_product", column: "product", value: "Seats" });
    await new Promise((r) => setTimeout(r, 800));
    expect(dashboardFrame(page).url()).toBe(before);
    expect(await dashboardFrame(page).evaluate(() => document.body.innerText)).toContain("your sales of Seats since");
    await page.close();
  }, 60_000);

  it("Tab + Enter on a bar opens the month's orders for the same customer (a token the service minted); Back returns; a tampered open is refused", async () => {
    const page = await mountRecording({ "embed-id": "sales-overview", "token-url": tokenUrl() });
    const frame = dashboardFrame(page);
    await frame.focus('section[data-panel-id="by_month"] a.csv');
    await page.keyboard.press("Tab");
    const focused = await frame.evaluate(() => {
      const active = document.activeElement;
      return {
        pick: active.hasAttribute("data-pick"),
        panel: active.closest("section").getAttribute("data-panel-id"),
        outline: getComputedStyle(active).outlineStyle,
        index: Number(active.getAttribute("ecmeta_data_index")),
      };
    });
    expect(focused).toMatchObject({ pick: true, panel: "by_month", outline: "solid" });
    const month = (await frame.evaluate(() => JSON.parse(document.getElementById("dashboard-clicks").textContent))).panels.by_month.rows[
      focused.index
    ].month;
    await page.screenshot({ path: join(screenshots, "embed-clicks-focus-1200.png"), fullPage: true });
    const sourceToken = new URL(frame.url()).searchParams.get("token")!;
    await page.keyboard.press("Enter");
    await waitForEvents(page, 1);
    expect((await events(page))[0].detail).toMatchObject({ type: "click", panel_id: "by_month", column: "month", value: month });
    const target = await frameWhen(page, (url) => url.includes("/embed/month-orders"));
    expect(new URL(target.url()).searchParams.get("var_month")).toBe(month);
    const text = await target.evaluate(() => document.body.innerText);
    expect(text).toContain(`Orders of ${month}`);
    expect(text).toContain("Acme Berlin");
    // The token in the target's URL is the service's, for the target dashboard and the same customer.
    const claims = (t: string) => JSON.parse(Buffer.from(t.split(".")[1], "base64url").toString());
    const minted = claims(new URL(target.url()).searchParams.get("token")!);
    expect(minted.dsh).toBe("month-orders");

    // A tampered open (another dashboard than the panel's) is refused; the panel's own passes.
    expect(minted.cid).toBe(claims(sourceToken).cid);
    const tampered = await target.evaluate(
      (t) =>
        fetch(`/embed/sales-overview/open/by_month?token=${t}&dashboard=monthly-report&row=%7B%7D`, { redirect: "manual" }).then(
          (r) => r.status,
        ),
      sourceToken,
    );
    expect(tampered).toBe(403);
    const control = await target.evaluate(
      (t) =>
        fetch(`/embed/sales-overview/open/by_month?token=${t}&dashboard=month-orders&row=%7B%7D`, { redirect: "manual" }).then(
          (r) => r.type,
        ),
      sourceToken,
    );
    expect(control).toBe("opaqueredirect");

    // The browser's Back (the joint history: the frame's page goes back, the host page stays).
    await page.evaluate(() => window.history.back());
    const back = await frameWhen(page, (url) => url.includes("/embed/sales-overview"));
    expect(await back.evaluate(() => document.body.innerText)).toContain("Revenue by month");
    await page.close();
  }, 60_000);

  it("setVariables shows the new values and dashboard-variables reports them; screenshots at 360 and 1280", async () => {
    for (const width of [360, 1280]) {
      const page = await mountRecording({ "embed-id": "sales-overview", "token-url": tokenUrl() }, width);
      await page.evaluate(() => document.querySelector("dashboard-embed").setVariables({ product: "Storage" }));
      await page.waitForFunction(() => window.__events.some((e: any) => e.type === "dashboard-variables"));
      const reported = (await events(page)).find((e) => e.type === "dashboard-variables")!;
      expect(reported.detail.variables).toEqual({ since: "2026-01-01", product: "Storage" });
      const frame = await frameWhen(page, (url) => url.includes("var_product=Storage"));
      expect(await frame.evaluate(() => document.body.innerText)).toContain("your sales of Storage since");
      expect(await frame.evaluate((s) => document.querySelector(s).getAttribute("aria-pressed"), slice)).toBe("true");
      await frame.focus('section[data-panel-id="by_month"] a.csv');
      await page.keyboard.press("Tab");
      await page.screenshot({ path: join(screenshots, `embed-clicks-${width}.png`), fullPage: true });
      await page.close();
    }
  }, 90_000);
});

describe("frames speak only to their host", () => {
  /** The same vendor app reached by another name: another origin, as a stranger's page would be. */
  const strangerOrigin = () => host.origin.replace("127.0.0.1", "localhost");

  /** Opens `origin`'s page, frames `src` in a plain iframe and records every message it receives (with its origin) for `ms`. */
  async function messagesAt(origin: string, src: string, ms = 4000) {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    const received = await page.evaluate(
      (url, wait) =>
        new Promise<{ origin: string; source: string; type: string }[]>((resolve) => {
          const got: { origin: string; source: string; type: string }[] = [];
          window.addEventListener("message", (e: any) => got.push({ origin: e.origin, source: e.data?.source, type: e.data?.type }));
          const frame = document.createElement("iframe");
          frame.src = url;
          document.getElementById("app")!.appendChild(frame);
          setTimeout(() => resolve(got), wait);
        }),
      src,
      ms,
    );
    await page.close();
    return received;
  }

  const mint = async (extra: Record<string, unknown>) => {
    const res = await devApi(server.base, server.vars.DEV_API_TOKEN)("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      locale: "en-US",
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.embed_url as string;
  };

  it("the allowed host page receives the page's messages; a page of another origin framing it receives none", async () => {
    const allowed = await mint({ allowed_origins: [host.origin] });
    const atHost = await messagesAt(host.origin, allowed);
    expect(atHost.some((m) => m.source === "dashboard-embed" && m.type === "ready")).toBe(true);
    expect(atHost.every((m) => m.origin === server.base)).toBe(true);
    const atStranger = await messagesAt(strangerOrigin(), allowed);
    expect(atStranger).toEqual([]);
  }, 60_000);

  it("with frame ancestors '*' and no allowed_origins, the page posts to the origin that framed it (each host its own)", async () => {
    const open = await mint({});
    for (const origin of [host.origin, strangerOrigin()]) {
      const received = await messagesAt(origin, open);
      expect(
        received.some((m) => m.source === "dashboard-embed" && m.type === "ready"),
        origin,
      ).toBe(true);
    }
  }, 60_000);

  it("<dashboard-embed> with a token for its own origin works end to end: load, then a click's rows reach the host", async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${host.origin}/`);
    const url = `${tokenUrl()}&allowed_origins=${encodeURIComponent(JSON.stringify([host.origin]))}`;
    const loaded = await page.evaluate(
      (tokenUrlValue) =>
        new Promise<string>((resolve) => {
          const element = document.createElement("dashboard-embed");
          element.setAttribute("embed-id", "sales-overview");
          element.setAttribute("token-url", tokenUrlValue);
          window.__clicks = [];
          element.addEventListener("dashboard-click", (e: any) => window.__clicks.push(e.detail));
          for (const type of ["dashboard-load", "dashboard-error"]) element.addEventListener(type, () => resolve(type), { once: true });
          document.getElementById("app")!.appendChild(element);
        }),
      url,
    );
    expect(loaded).toBe("dashboard-load");
    const frame = dashboardFrame(page);
    expect(await frame.evaluate(() => document.querySelector('meta[name="host-origins"]').getAttribute("content"))).toBe(host.origin);
    await frame.waitForSelector("[data-pick]");
    await frame.evaluate(() => document.querySelector("[data-pick]")!.dispatchEvent(new MouseEvent("click", { bubbles: true })));
    await page.waitForFunction(() => window.__clicks.length > 0, { timeout: 10_000 });
    expect((await page.evaluate(() => window.__clicks[0])).source).toBe("dashboard-embed");
    await page.close();
  }, 60_000);
});
