import puppeteer from "puppeteer-core";
import { startLocalServer } from "/work/main/scripts/lib/local-server.mjs";
const port = 19959, base = `http://127.0.0.1:${port}`;
const server = await startLocalServer({ port, args: ["--var", "LOG_LEVEL:warn"] });
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
try {
  const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const customer = await fetch(`${base}/api/get_customer/`, { method: "POST", headers, body: JSON.stringify({ provided_id: "acme-berlin" }) }).then((r) => r.json());
  const html = await fetch(`${base}/embed/sales-overview?customer_token=${customer.customer.token}`).then((r) => r.text());
  console.log("html bytes", html.length);
  const browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
  const t = { set: [], wait: [], shot: [], shotFast: [], pdf: [] };
  for (let i = 0; i < 23; i++) {
    const a = performance.now();
    await page.setContent(html, { waitUntil: "load" });
    const b = performance.now();
    await page.waitForSelector('body[data-render-complete="true"]');
    const c = performance.now();
    const png = await page.screenshot({ fullPage: true, type: "png" });
    const d = performance.now();
    await page.screenshot({ fullPage: true, type: "png", optimizeForSpeed: true });
    const e = performance.now();
    await page.pdf({ printBackground: true, width: "1280px", height: "1810px" });
    const f = performance.now();
    if (i >= 3) { t.set.push(b - a); t.wait.push(c - b); t.shot.push(d - c); t.shotFast.push(e - d); t.pdf.push(f - e); }
    if (i === 0) console.log("png bytes", png.length);
  }
  for (const k in t) console.log(k, median(t[k]).toFixed(1));
  await browser.close();
} finally { await server.stop(); }
process.exit(0);
