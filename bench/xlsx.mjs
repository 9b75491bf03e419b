#!/usr/bin/env node
// The demo dashboard (sales-overview, customer acme-berlin) as a spreadsheet under `npm start`:
// time from POST /api/dashboard/screenshot {export_type: "xlsx"} to the downloaded file, and
// its size — against the floor of the same dashboard's embed page (the same panel queries,
// rendered as HTML instead), median of 7 interleaved rounds, in the same run.
// Then a saved report of the report builder (every order of acme-berlin, on the demo
// blueprint "Sales data") as XLSX and as CSV through the same endpoint (`report_id`), against
// the floor of the builder's own query call for that report's query (same rows, as JSON).
// Usage: npm run bench:xlsx
import { apiHeaders, importBundled, interleave, kib, median, ratio, startServer, timed } from "./lib/harness.mjs";

// The writers alone, in process (Node, where the clock measures CPU work): a saved report's
// result as XLSX and as CSV (src/report-builder/delivered.ts) for 1,000 rows (the builder's default
// limit) and 10,000 (QUERY_ROW_LIMIT's default), shaped like the demo orders.
{
  const { reportWorkbook, reportCsvBytes } = await importBundled("src/report-builder/delivered.ts");
  const columns = [
    { name: "id", display_name: "Order", type: "INTEGER" },
    { name: "day", display_name: "Day", type: "DATE" },
    { name: "month", display_name: "Month", type: "STRING" },
    { name: "product", display_name: "Product", type: "STRING" },
    { name: "amount", display_name: "Amount", type: "FLOAT" },
  ];
  const products = ["Seats", "Storage", "Support", "Training"];
  const rowsOf = (n) =>
    Array.from({ length: n }, (_, i) => {
      const day = new Date(Date.UTC(2026, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
      return { id: i + 1, day, month: day.slice(0, 7), product: products[i % 4], amount: Math.round(((i * 7919) % 100_000) + 0.5) / 100 };
    });
  console.log(`\nA saved report's writers alone, in process (Node ${process.version}), median of 9`);
  for (const n of [1_000, 10_000]) {
    const result = { columns, rows: rowsOf(n) };
    const sizes = {};
    const times = await interleave(
      9,
      {
        xlsx: async () => {
          const { ms, value: book } = await timed(() => reportWorkbook({ name: "Every order" }, result));
          sizes.xlsx = book.byteLength;
          return ms;
        },
        csv: () => {
          const { ms, value: csv } = timed(() => reportCsvBytes(result));
          sizes.csv = csv.byteLength;
          return ms;
        },
      },
      { warmup: 1 },
    );
    console.log(
      `  ${n} rows × 5 columns: XLSX ${median(times.xlsx).toFixed(1)} ms, ${kib(sizes.xlsx)}; CSV ${median(times.csv).toFixed(1)} ms, ${kib(sizes.csv)}`,
    );
  }
}

const port = 19891;
const base = `http://127.0.0.1:${port}`;
const server = await startServer({ port, vars: { RATE_LIMIT_PER_MINUTE: 1000000, DELIVERY_LIMIT_PER_MINUTE: 1000000 } });

try {
  const headers = apiHeaders(server);
  const api = async (path, body) => (await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
  const { customer } = await api("/api/get_customer/", { provided_id: "acme-berlin" });
  let size = 0;
  let sheets = 0;
  // Round 0 warms the isolate and the query paths.
  const { xlsx, page } = await interleave(
    7,
    {
      xlsx: async () => {
        const { ms, value: bytes } = await timed(async () => {
          const job = await api("/api/dashboard/screenshot", {
            provided_id: "acme-berlin",
            dashboard_embed_id: "sales-overview",
            export_type: "xlsx",
          });
          const file = await fetch(`${job.url}?wait=30`);
          if (file.status !== 200) throw new Error(`download answered ${file.status}: ${await file.text()}`);
          return new Uint8Array(await file.arrayBuffer());
        });
        size = bytes.byteLength;
        sheets = (new TextDecoder("latin1").decode(bytes).match(/xl\/worksheets\/sheet\d+\.xml/g) ?? []).length / 2;
        return ms;
      },
      page: async () =>
        (
          await timed(async () => {
            const html = await fetch(`${base}/embed/sales-overview?customer_token=${customer.token}`);
            if (html.status !== 200) throw new Error(`embed page answered ${html.status}`);
            await html.text();
          })
        ).ms,
    },
    { warmup: 1 },
  );
  // A saved report, made as a customer's user makes it: builder token, then save.
  const { blueprints } = await api("/api/get_customer_blueprints/", { customer_id: "acme-berlin" });
  const blueprint = blueprints.find((b) => b.name === "Sales data");
  if (!blueprint) throw new Error("the demo blueprint 'Sales data' is missing");
  const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.id });
  const builder = async (path, body) =>
    (
      await fetch(`${base}/report-builder/${blueprint.embed_id}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${minted.token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      })
    ).json();
  const query = { dataset: "orders", columns: ["id", "day", "month", "product", "amount"], limit: 1000 };
  const saved = await builder("/reports", { name: "Every order", query, chart: { type: "table" } });
  if (!saved.report) throw new Error(`report not saved: ${JSON.stringify(saved)}`);
  const reportSizes = {};
  let rowCount = 0;
  const download = async (format) =>
    (
      await timed(async () => {
        const job = await api("/api/dashboard/screenshot", { provided_id: "acme-berlin", report_id: saved.report.id, export_type: format });
        const file = await fetch(`${job.url}?wait=30`);
        if (file.status !== 200) throw new Error(`report ${format} download answered ${file.status}: ${await file.text()}`);
        reportSizes[format] = (await file.arrayBuffer()).byteLength;
      })
    ).ms;
  const reportRuns = await interleave(
    7,
    {
      xlsx: () => download("xlsx"),
      csv: () => download("csv"),
      query: async () => {
        const { ms, value: result } = await timed(() => builder("/query", query));
        if (!Array.isArray(result.rows)) throw new Error(`builder query failed: ${JSON.stringify(result)}`);
        rowCount = result.rows.length;
        return ms;
      },
    },
    { warmup: 1 },
  );

  console.log(`
Saved report "Every order" (acme-berlin, ${rowCount} rows × 5 columns), local runtime (npm start), median of ${reportRuns.xlsx.length}
  request → downloaded XLSX: ${median(reportRuns.xlsx).toFixed(0)} ms, ${reportSizes.xlsx} bytes (${kib(reportSizes.xlsx)})
  request → downloaded CSV:  ${median(reportRuns.csv).toFixed(0)} ms, ${reportSizes.csv} bytes (${kib(reportSizes.csv)})
  Floor: the builder's query call for the same query (same rows, JSON): ${median(reportRuns.query).toFixed(0)} ms
  ratios XLSX ${ratio(median(reportRuns.xlsx), median(reportRuns.query))}×, CSV ${ratio(median(reportRuns.csv), median(reportRuns.query))}×`);

  console.log(`
Demo dashboard as XLSX (sales-overview, acme-berlin), local runtime (npm start), median of ${xlsx.length}
  request → downloaded workbook: ${median(xlsx).toFixed(0)} ms, ${size} bytes (${kib(size)}), ~${sheets} sheets
  Floor: the same dashboard's embed page (same panel queries, HTML): ${median(page).toFixed(0)} ms
  ratio ${ratio(median(xlsx), median(page))}×`);
} finally {
  await server.stop();
}
process.exit(0);
