#!/usr/bin/env node
// Before/after screenshots of the pages a change to the view can move: starts the service of a
// checkout on a fresh local state and saves full-page PNGs at 360 and 1280 px of
//   embed-<w>.png             the demo dashboard sales-overview for acme-berlin (a minted embed link)
//   builder-<w>.png           the report builder on the demo blueprint "Sales data", as it opens
//   builder-report-<w>.png    the same with a saved report open (?report=)
//   mail-report-<w>.png       a report e-mail (/api/dashboard/report) as the recipient sees its HTML
//   mail-schedule-<w>.png     a schedule's report e-mail (run now), with its unsubscribe footer
//   unsubscribe-<w>.png       that e-mail's unsubscribe link (the confirmation page)
//   unsubscribe-done-<w>.png  the page after pressing its button (the one-click POST)
//   unsubscribe-unknown-<w>.png  an unknown unsubscribe link
// Usage: node scripts/page-screenshots.mjs <out-dir>, run in the checkout to photograph (its
// root is the working directory, or CHECKOUT_ROOT): the server and Chromium come from that
// checkout's scripts/lib, so a copy of this file can photograph an older checkout.
// Compare two runs with scripts/compare-screenshots.mjs.
//
// Everything is fixed content (demo seed data, fixed names, subjects and addresses; the
// browser's time zone UTC), except what a fresh state mints anew each run: tokens in links,
// schedule and report ids, and the unsubscribe token (none of them drawn on a page).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const outDir = process.argv[2];
if (!outDir) {
  console.error("usage: node scripts/page-screenshots.mjs <out-dir>   (in the checkout to photograph, or CHECKOUT_ROOT=<checkout>)");
  process.exit(2);
}
const root = resolve(process.env.CHECKOUT_ROOT ?? process.cwd());
const out = resolve(outDir);
mkdirSync(out, { recursive: true });
const lib = (name) => import(pathToFileURL(join(root, "scripts", "lib", name)).href);
const { freePort, startLocalServer } = await lib("local-server.mjs");
const { launchBrowser } = await lib("chromium.mjs");

const CUSTOMER = "acme-berlin";
const DASHBOARD = "sales-overview";
const READER = "reader@example.com";
const WIDTHS = [360, 1280];

const server = await startLocalServer({ port: await freePort() });
const browser = await launchBrowser();
const api = async (path, body, headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}` }) => {
  const response = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (json.success === 0 || json.error) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
};

/** Opens a page at each width, lets `ready` wait for it to settle, and saves it full page as <name>-<width>.png. */
async function shoot(name, open, ready = async () => {}) {
  for (const width of WIDTHS) {
    const page = await browser.newPage();
    await page.emulateTimezone("UTC");
    await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
    await open(page, width);
    await ready(page);
    // Web fonts and images in, and two frames drawn after the last change.
    await page.evaluate(() => document.fonts.ready);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const file = join(out, `${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await page.close();
    console.log(`wrote ${file}`);
  }
}

/** A message of the local outbox by its subject (waits for the delivery job to send it): the raw MIME text. */
async function outboxMessage(subject) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const list = await (await fetch(`${server.base}/_dev/outbox`)).text();
    for (const [, name, listed] of list.matchAll(/<a href="\/_dev\/outbox\/([^"]+)">([^<]*)<\/a>/g)) {
      if (listed === subject) return (await fetch(`${server.base}/_dev/outbox/${name}`)).text();
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  throw new Error(`no e-mail "${subject}" in the outbox after 180 s`);
}

/** A MIME message's header fields (lower-case names, folded lines joined) and its leaf parts, bodies decoded to bytes. */
function parseMime(raw) {
  const headersOf = (block) => {
    const headers = {};
    for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
      const at = line.indexOf(":");
      if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    }
    return headers;
  };
  const decode = (headers, body) => {
    const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
    if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64");
    if (encoding === "quoted-printable") {
      const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
      return Buffer.from(bytes, "latin1");
    }
    return Buffer.from(body, "utf8");
  };
  const parts = [];
  const walk = (headers, body) => {
    const boundary = /boundary="?([^";]+)"?/i.exec(headers["content-type"] ?? "")?.[1];
    if (!boundary) {
      parts.push({ headers, bytes: decode(headers, body.replace(/^\r?\n/, "").replace(/\r?\n$/, "")) });
      return;
    }
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      const at = chunk.search(/\r?\n\r?\n/);
      walk(headersOf(chunk.slice(0, at)), chunk.slice(at).replace(/^\r?\n\r?\n/, ""));
    }
  };
  const split = raw.search(/\r?\n\r?\n/);
  const top = headersOf(raw.slice(0, split));
  walk(top, raw.slice(split).replace(/^\r?\n\r?\n/, ""));
  return { headers: top, parts };
}

/** The message's HTML part with its inline images (cid:) as data: URLs, the way a mail client shows it. */
function mailHtml(message) {
  const html = message.parts.find((p) => (p.headers["content-type"] ?? "").startsWith("text/html"));
  if (!html) throw new Error("the e-mail has no HTML part");
  const inline = new Map();
  for (const part of message.parts) {
    const id = /<([^>]+)>/.exec(part.headers["content-id"] ?? "")?.[1];
    if (id) inline.set(id, `data:${(part.headers["content-type"] ?? "").split(";")[0]};base64,${part.bytes.toString("base64")}`);
  }
  return html.bytes.toString("utf8").replace(/cid:([^"'\s)]+)/g, (whole, id) => inline.get(id) ?? whole);
}

/** Shows an e-mail's HTML in a page of the service's origin (its logo is served there), as a mail client would. */
function showMail(html) {
  return async (page) => {
    await page.goto(`${server.base}/_dev/outbox`);
    await page.setContent(html, { waitUntil: "networkidle0" });
  };
}

try {
  // (1) The embed page.
  const embed = await api("/api/generate_embed_token/", { provided_id: CUSTOMER, dashboard_embed_id: DASHBOARD });
  await shoot(
    "embed",
    (page, width) => page.goto(`${embed.embed_url}&width=${width}`),
    (page) => page.waitForSelector('body[data-render-complete="true"]'),
  );

  // (2) The report builder, as it opens and with a saved report open.
  const { blueprints } = await api("/api/get_customer_blueprints/", { customer_id: CUSTOMER });
  const blueprint = blueprints.find((b) => b.name === "Sales data");
  if (!blueprint) throw new Error('the demo blueprint "Sales data" is missing');
  const builder = await api("/api/generate_embed_token/", { provided_id: CUSTOMER, blueprint_id: blueprint.id, user_id: "demo-user" });
  const settled = async (page) => {
    await page.waitForNetworkIdle({ idleTime: 300 });
    await page.waitForFunction(() => document.getElementById("rb-result")?.getAttribute("aria-busy") !== "true");
  };
  await shoot("builder", (page) => page.goto(builder.embed_url, { waitUntil: "networkidle0" }), settled);
  const { report } = await api(
    `/report-builder/${blueprint.embed_id}/reports`,
    {
      name: "Revenue by month",
      query: {
        dataset: "orders",
        group_by: [{ column: "day", bucket: "month" }],
        values: [{ column: "amount", aggregate: "sum" }, { aggregate: "count" }],
      },
      chart: { type: "bar", x: "day_month", y: ["sum_amount"] },
    },
    { Authorization: `Bearer ${builder.token}` },
  );
  await shoot("builder-report", (page) => page.goto(`${builder.embed_url}&report=${report.id}`, { waitUntil: "networkidle0" }), settled);

  // (3) A report e-mail.
  const reportSubject = "Sales overview (page screenshots)";
  await api("/api/dashboard/report", { provided_id: CUSTOMER, dashboard_embed_id: DASHBOARD, email: READER, subject: reportSubject });
  await shoot("mail-report", showMail(mailHtml(parseMime(await outboxMessage(reportSubject)))));

  // (4) A schedule's e-mail and its unsubscribe link (List-Unsubscribe: <url>).
  const scheduleSubject = "Monthly sales (page screenshots)";
  const { schedule } = await api("/api/create_report_schedule/", {
    dashboard_embed_id: DASHBOARD,
    provided_id: CUSTOMER,
    cron: "0 8 1 * *",
    timezone: "Europe/Berlin",
    recipients: [READER],
    subject: scheduleSubject,
  });
  await api("/api/run_report_schedule/", { id: schedule.id });
  const scheduled = parseMime(await outboxMessage(scheduleSubject));
  await shoot("mail-schedule", showMail(mailHtml(scheduled)));
  const unsubscribe = /<([^>]+)>/.exec(scheduled.headers["list-unsubscribe"] ?? "")?.[1];
  if (!unsubscribe) throw new Error("the schedule's e-mail has no List-Unsubscribe link");
  const local = unsubscribe.replace(/^https?:\/\/[^/]+/, server.base);
  await shoot("unsubscribe", (page) => page.goto(local));
  await shoot("unsubscribe-done", async (page) => {
    await page.goto(local);
    // Once unsubscribed (the first width), the link's GET shows the same done page.
    if (await page.$("button[type=submit]")) await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  });
  await shoot("unsubscribe-unknown", (page) => page.goto(`${server.base}/unsubscribe/${"0".repeat(64)}`));
  writeFileSync(join(out, "urls.txt"), `embed ${embed.embed_url}\nbuilder ${builder.embed_url}\nunsubscribe ${unsubscribe}\n`);
} finally {
  await browser.close();
  await server.stop();
}
