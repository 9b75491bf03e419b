#!/usr/bin/env node
// The demo dashboard (sales-overview, customer acme-berlin) as a spreadsheet under `npm start`:
// time from POST /api/dashboard/screenshot {export_type: "xlsx"} to the downloaded file, and
// its size — against the floor of the same dashboard's embed page (the same panel queries,
// rendered as HTML instead), median of 7 interleaved rounds, in the same run.
// Usage: npm run bench:xlsx
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const port = 19891;
const base = `http://127.0.0.1:${port}`;
const server = await startLocalServer({ port, args: ["--var", "RATE_LIMIT_PER_MINUTE:1000000", "--var", "DELIVERY_LIMIT_PER_MINUTE:1000000"] });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const api = async (path, body) => (await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
  const { customer } = await api("/api/get_customer/", { provided_id: "acme-berlin" });
  const xlsx = [];
  const page = [];
  let size = 0;
  let sheets = 0;
  for (let round = 0; round < 8; round++) {
    let started = performance.now();
    const job = await api("/api/dashboard/screenshot", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview", export_type: "xlsx" });
    const file = await fetch(`${job.url}?wait=30`);
    if (file.status !== 200) throw new Error(`download answered ${file.status}: ${await file.text()}`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    const xlsxMs = performance.now() - started;
    size = bytes.byteLength;
    sheets = (new TextDecoder("latin1").decode(bytes).match(/xl\/worksheets\/sheet\d+\.xml/g) ?? []).length / 2;
    started = performance.now();
    const html = await fetch(`${base}/embed/sales-overview?customer_token=${customer.token}`);
    if (html.status !== 200) throw new Error(`embed page answered ${html.status}`);
    await html.text();
    const pageMs = performance.now() - started;
    if (round > 0) {
      xlsx.push(xlsxMs); // round 0 warms the isolate and the query paths
      page.push(pageMs);
    }
  }
  console.log(`
Demo dashboard as XLSX (sales-overview, acme-berlin), local runtime (npm start), median of ${xlsx.length}
  request → downloaded workbook: ${median(xlsx).toFixed(0)} ms, ${size} bytes (${(size / 1024).toFixed(1)} KiB), ~${sheets} sheets
  Floor: the same dashboard's embed page (same panel queries, HTML): ${median(page).toFixed(0)} ms
  ratio ${(median(xlsx) / median(page)).toFixed(2)}×`);
} finally {
  await server.stop();
}
process.exit(0);
