// What a recipient of a scheduled e-mail sees, in a real browser (puppeteer-core on the local
// Chromium) against the real `npm start`: the e-mail's HTML with its unsubscribe footer, and
// the unsubscribe page its List-Unsubscribe link opens — at 360 and 1280 px, screenshots in
// test-results/. The GET page changes nothing; its button unsubscribes.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseMime } from "../helpers/mime";
import { serverAndBrowser, shots } from "./host-page";

declare const document: any;

const host = serverAndBrowser();
const { api, mailTo } = host;

describe("a scheduled e-mail's unsubscribe, as the recipient sees it", () => {
  it("shows the footer link in the e-mail and a confirmation page whose button unsubscribes, at 360 and 1280 px", async () => {
    const email = `reader-${Date.now()}@example.com`;
    const created = await api("/api/create_report_schedule/", {
      dashboard_embed_id: "sales-overview",
      // acme, not acme-berlin: the e-mail and the page are in the customer's language, and this
      // test reads the English words (acme-berlin reads German).
      provided_id: "acme",
      cron: "0 6 1 1 *",
      recipients: [email],
      subject: "Monthly numbers",
    });
    expect(created.success, JSON.stringify(created)).toBe(1);
    const ran = await api("/api/run_report_schedule/", { id: created.schedule.id });
    expect(ran.success, JSON.stringify(ran)).toBe(1);
    let status = "";
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
      status = (await api("/api/dashboard/job_status/", { job_id: ran.run.job_ids[0] })).job?.status;
      if (status === "done" || status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe("done");

    const raw = await mailTo(email);
    const link = raw.match(/^List-Unsubscribe: <([^>]+)>$/m)?.[1];
    expect(link).toMatch(/\/unsubscribe\/[0-9a-f]{64}$/);
    const { parts } = parseMime(raw);

    // A mail client shows the inline image its cid: names; the page gets it as a data: URL.
    const html = parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))?.body ?? "";
    const page = await host.browser.newPage();
    for (const width of [360, 1280]) {
      await page.setViewport({ width, height: 900 });
      await page.setContent(html, { waitUntil: "load" });
      const footer = await page.evaluate(() => {
        const a = [...document.querySelectorAll("a")].find((e: any) => /unsubscribe/i.test(e.textContent));
        const box = a?.getBoundingClientRect();
        return a ? { href: a.getAttribute("href"), right: box.right, width: document.documentElement.clientWidth } : null;
      });
      expect(footer?.href).toBe(link);
      expect(footer!.right).toBeLessThanOrEqual(footer!.width);
      expect(await page.evaluate(() => document.body.innerText)).toContain("Open the live dashboard");
      await page.screenshot({ path: join(shots, `unsubscribe-mail-${width}.png`), fullPage: true });

      await page.goto(link!.replace(/^https?:\/\/[^/]+/, host.server.base), { waitUntil: "load" });
      expect(await page.$eval("h1", (h: any) => h.textContent)).toBe("Unsubscribe?");
      expect(await page.$eval("main", (m: any) => m.innerText)).toContain(email);
      const button = await page.$eval("button", (b: any) => {
        const box = b.getBoundingClientRect();
        return { text: b.textContent, right: box.right, width: document.documentElement.clientWidth };
      });
      expect(button.text).toBe("Unsubscribe");
      expect(button.right).toBeLessThanOrEqual(button.width);
      await page.screenshot({ path: join(shots, `unsubscribe-page-${width}.png`), fullPage: true });
    }
    // The GET pages above changed nothing; the button does.
    expect((await api("/api/get_report_schedule/", { id: created.schedule.id })).unsubscribed).toEqual([]);
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button")]);
    expect(await page.$eval("h1", (h: any) => h.textContent)).toBe("You are unsubscribed");
    await page.screenshot({ path: join(shots, "unsubscribe-done-1280.png"), fullPage: true });
    expect((await api("/api/get_report_schedule/", { id: created.schedule.id })).unsubscribed).toEqual([email]);
    await page.close();
  }, 180_000);
});
