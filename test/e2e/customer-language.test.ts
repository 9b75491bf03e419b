// What a vendor's customer sees first, in its own language and theme (docs/theming.md,
// docs/embedding.md): the Subscribe control of the live embed page in all six languages — as
// served and after its script has run — and the report e-mail of a de-DE and an ar-EG customer
// in a dark theme, read from the local outbox of the real `npm start` and shown in a real
// browser (puppeteer-core on the local Chromium; screenshots in test-results/).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DARK_THEME } from "../../scripts/lib/demo-themes.mjs";
import { CATALOGUES } from "../../src/view/messages";
import { parseMime } from "../helpers/mime";
import { decodePng } from "./pixels";
import { serverAndBrowser, shots } from "./host-page";

declare const document: any;

const host = serverAndBrowser();
const { api, mailTo } = host;

async function waitDone(jobId: string): Promise<void> {
  let status = "";
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
    status = (await api("/api/dashboard/job_status/", { job_id: jobId })).job?.status;
    if (status === "done" || status === "failed") break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(status).toBe("done");
}

const LOCALES = ["en-US", "de-DE", "fr-FR", "es-ES", "ja-JP", "ar-EG"] as const;
const languageOf = (locale: string) => locale.split("-")[0];

describe("the Subscribe control speaks the page's language", () => {
  it("in all six languages: the served HTML and, after its script ran, the list it writes", async () => {
    const page = await host.browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    for (const locale of LOCALES) {
      const words = CATALOGUES[languageOf(locale)];
      const email = `viewer-${languageOf(locale)}-${Date.now()}@acme.example`;
      const minted = await api("/api/generate_embed_token/", {
        provided_id: "acme",
        dashboard_embed_id: "sales-overview",
        user_email: email,
        locale,
      });
      expect(minted.success, JSON.stringify(minted)).toBe(1);
      // As served.
      const served = await (await fetch(minted.embed_url)).text();
      expect(served).toContain(`<summary>${words["subscribe.open"]}</summary>`);
      for (const key of ["subscribe.daily", "subscribe.weekly", "subscribe.monthly"] as const)
        expect(served, `${locale} ${key}`).toContain(`>${words[key]}</option>`);
      expect(served).toContain(`>${words["subscribe.submit"]}</button>`);
      // After its script ran: it writes the (empty) list and, once subscribed, the rule.
      await page.emulateTimezone("Europe/Berlin");
      await page.goto(minted.embed_url, { waitUntil: "load" });
      await page.waitForSelector("body[data-render-complete=true]");
      await page.click("#subscribe summary");
      await page.waitForFunction(
        (none: string) => document.querySelector("#subscribe ul")?.textContent.includes(none),
        {},
        words["subscribe.none"],
      );
      expect(await page.$eval("#subscribe .box p", (p: any) => p.textContent)).toBe(words["subscribe.to"].replace("{email}", email));
      await page.select("#subscribe select[name=frequency]", "weekly");
      await page.select("#subscribe select[name=hour]", "9");
      await page.click("#subscribe button[type=submit]");
      const weekly = words["subscribe.describe_weekly"].replace("{time}", "09:00").replace("{zone}", "Europe/Berlin");
      await page.waitForFunction((text: string) => document.querySelector("#subscribe ul")?.textContent.includes(text), {}, weekly);
      expect(await page.$eval("#subscribe [role=status]", (p: any) => p.textContent)).toBe(words["subscribe.done"]);
      expect(await page.$eval("#subscribe li button", (b: any) => b.textContent)).toBe(words["subscribe.cancel"]);
      await page.screenshot({ path: join(shots, `subscribe-${locale}.png`) });
      await page.click("#subscribe li button");
      await page.waitForFunction(
        (text: string) => document.querySelector("#subscribe [role=status]")?.textContent === text,
        {},
        words["subscribe.cancelled"],
      );
    }
    await page.close();
  }, 240_000);
});

describe("the report e-mail of a de-DE and an ar-EG customer in a dark theme", () => {
  it("says our words in the customer's language, with lang and dir, in the theme's colors around the image and its logo once", async () => {
    const page = await host.browser.newPage();
    for (const [locale, dir] of [
      ["de-DE", "ltr"],
      ["ar-EG", "rtl"],
    ] as const) {
      const words = CATALOGUES[languageOf(locale)];
      const providedId = `firstday-${languageOf(locale)}-${Date.now()}`;
      const name = locale === "de-DE" ? "Müller GmbH" : "شركة النيل";
      const created = await api("/api/create_customer/", { provided_id: providedId, name, locale, theme: DARK_THEME, mapping: { 1: "1" } });
      expect(created.success, JSON.stringify(created)).toBe(1);
      const email = `boss-${languageOf(locale)}-${Date.now()}@example.com`;
      const report = await api("/api/dashboard/report", { provided_id: providedId, dashboard_embed_id: "sales-overview", email });
      expect(report.success, JSON.stringify(report)).toBe(1);
      await waitDone(report.job_id);
      const { parts } = parseMime(await mailTo(email));
      const html = parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
      const text = parts.find((p) => p.headers["content-type"]?.startsWith("text/plain"))!.body;
      const image = parts.find((p) => p.headers["content-id"] === "<dashboard>")!;

      expect(html).toContain(`<html lang="${locale}" dir="${dir}">`);
      expect(html).toContain(words["mail.intro_dashboard"].replace("{customer}", name));
      expect(html).toContain(`alt="${words["mail.image_dashboard"].replace("{customer}", name)}"`);
      expect(html).toContain(`>${words["mail.open_dashboard"]}</a>`);
      expect(text).toContain(`${words["mail.open_dashboard"]}: `);
      for (const english of ["Open the live", "Dashboard report for", "Your dashboard report"]) expect(html).not.toContain(english);
      // The shell in the theme's background and text colors; one image, the capture (it carries the logo).
      expect(html).toMatch(/<body style="[^"]*background:#0b1020;[^"]*color:#e8ecf8/);
      expect(html).not.toContain("#f4f6fb");
      expect(html.match(/<img /g)).toHaveLength(1);

      // As a mail client shows it: the inline image its cid: names, here as a data: URL.
      const shown = html.replace("cid:dashboard", `data:image/png;base64,${image.body.replace(/\s+/g, "")}`);
      await page.setViewport({ width: 800, height: 900 });
      await page.setContent(shown, { waitUntil: "load" });
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(dir);
      expect(await page.evaluate(() => (document.querySelector("img") as any).naturalWidth)).toBeGreaterThan(0);
      const bytes = await page.screenshot({ path: join(shots, `report-mail-${locale}.png`), fullPage: true });
      // On a phone and on a wide screen: the image follows the width, nothing runs past the edge.
      for (const width of [360, 1280]) {
        await page.setViewport({ width, height: 900 });
        const fits = await page.evaluate(() => ({
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          image: (document.querySelector("img") as any).getBoundingClientRect().width,
        }));
        expect(fits.overflow, `${locale} e-mail at ${width} px`).toBeLessThanOrEqual(0);
        expect(fits.image).toBeGreaterThan(width === 360 ? 250 : 600);
        expect(fits.image).toBeLessThanOrEqual(width);
        // The window grown to the page instead of a full-page capture: Chromium's capture beyond the
        // window draws a right-to-left page shifted.
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.setViewport({ width, height });
        await page.screenshot({ path: join(shots, `report-mail-${locale}-${width}.png`) });
      }
      // The margin around the image is the theme's background, not light grey.
      const png = decodePng(bytes);
      const at = (png.width * 4 + 4) * 4;
      expect([png.data[at], png.data[at + 1], png.data[at + 2]]).toEqual([0x0b, 0x10, 0x20]);
    }
    await page.close();
  }, 240_000);
});
