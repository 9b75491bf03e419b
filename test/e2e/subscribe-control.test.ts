// The "Subscribe" control of a live embed page in a real browser (puppeteer-core on the local
// Chromium), against the real `npm start`: a viewer whose signed token carries user_email
// subscribes weekly at 09:00 in the browser's time zone, sees it listed, and cancels it.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtBrowserScript } from "../../scripts/lib/browser-build.mjs";
import { serverAndBrowser, shots } from "./host-page";

declare const document: any;

const host = serverAndBrowser();
const { api } = host;

describe("Subscribe on the live embed page", () => {
  it("subscribes the token's viewer weekly at 09:00 in the browser's time zone, lists it and cancels it (360 and 1280 px)", async () => {
    const email = `viewer-${Date.now()}@acme.example`;
    const minted = await api("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      user_email: email,
      // The control speaks the view's language (acme-berlin's is German): this test reads the English words.
      locale: "en-US",
    });
    expect(minted.success).toBe(1);
    const page = await host.browser.newPage();
    await page.emulateTimezone("Europe/Berlin");
    for (const width of [360, 1280]) {
      await page.setViewport({ width, height: 900 });
      await page.goto(`${minted.embed_url}&width=${width}`, { waitUntil: "load" });
      await page.waitForSelector("body[data-render-complete=true]");
      await page.click("#subscribe summary");
      await page.waitForFunction(() => document.querySelector("#subscribe ul")?.textContent.includes("No subscriptions yet."));
      expect(await page.$eval("#subscribe .box p", (p: any) => p.textContent)).toContain(email);
      await page.select("#subscribe select[name=frequency]", "weekly");
      await page.select("#subscribe select[name=hour]", "9");
      await page.click("#subscribe button[type=submit]");
      await page.waitForFunction(() =>
        document.querySelector("#subscribe ul")?.textContent.includes("Weekly on Mondays at 09:00 (Europe/Berlin)"),
      );
      await page.screenshot({ path: join(shots, `subscribe-${width}.png`), fullPage: false });

      const listed = await api("/api/report_schedules/");
      const mine = listed.schedules.filter((s: any) => s.recipients.includes(email));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ source: "embed", cron: "0 9 * * 1", timezone: "Europe/Berlin", provided_id: "acme-berlin" });

      await page.click("#subscribe li button");
      await page.waitForFunction(() => document.querySelector("#subscribe ul")?.textContent.includes("No subscriptions yet."));
      expect(await page.$eval("#subscribe [role=status]", (p: any) => p.textContent)).toBe("Subscription cancelled.");
      expect((await api("/api/report_schedules/")).schedules.filter((s: any) => s.recipients.includes(email))).toHaveLength(0);
    }
    await page.close();
  }, 120_000);

  it("runs the built scripts: the page's inline scripts are the built control, click and frame scripts, allowed by exactly their hashes", async () => {
    const minted = await api("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      user_email: `built-${Date.now()}@acme.example`,
    });
    const page = await host.browser.newPage();
    // What the browser was served (and ran: a script whose hash the CSP lacks would be blocked).
    const response = await page.goto(`${minted.embed_url}&width=1280`, { waitUntil: "load" });
    await page.waitForSelector("body[data-render-complete=true]");
    const html = await response!.text();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    // The demo dashboard has clickable panels: the click script runs too (docs/embedding.md "Clicks").
    expect(scripts).toEqual([builtBrowserScript("subscribe-control"), builtBrowserScript("clicks"), builtBrowserScript("frame")]);
    const hash = (script: string) => `'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`;
    const csp = response!.headers()["content-security-policy"];
    expect(csp).toContain(`script-src ${hash(scripts[2])} ${hash(scripts[1])} ${hash(scripts[0])};`);
    // The control's script ran: it wrote the browser's time zone into the control.
    expect(await page.$eval("#subscribe .zone", (z: any) => z.textContent)).not.toBe("");
    await page.close();
  }, 60_000);

  it("is not on a page whose token has no user_email, nor on a customer_token page", async () => {
    const plain = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" });
    const html = await (await fetch(plain.embed_url)).text();
    expect(html).toContain('data-render-complete="true"');
    expect(html).not.toContain('id="subscribe"');
    const customer = (await api("/api/get_customer/", { provided_id: "acme-berlin" })).customer;
    const legacy = await (await fetch(`${host.server.base}/embed/sales-overview?customer_token=${customer.token}`)).text();
    expect(legacy).not.toContain('id="subscribe"');
  });
});
