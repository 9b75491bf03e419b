#!/usr/bin/env node
// The report builder's query route against its floor, in one run of the local runtime
// (`npm start` on its own port and state): a builder query on the demo blueprint "Sales
// data" (acme-berlin's orders, grouped by month and product) on D1 and on PostgreSQL
// (WAREHOUSE), each against the very statement it compiles to, run straight through the
// same binding by a development-only route (no token, no blueprint, no batch, no
// transaction). Interleaved rounds, medians. Also the D1 and data-source round trips of one
// builder request (X-D1-Round-Trips, X-Data-Round-Trips), and what the XLSX library
// (write-excel-file) adds to the Worker bundle, gzipped (wrangler deploy --dry-run with and
// without it). Usage: npm run bench:builder [-- --runs 30]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { adminHeaders, mapCustomerData, median, numberArg, postJson, ratio, root, startServer, timed } from "./lib/harness.mjs";

const runs = numberArg("runs", 30);
const port = 19993;
const base = `http://127.0.0.1:${port}`;
const query = {
  dataset: "orders",
  group_by: [{ column: "day", bucket: "month" }, { column: "product" }],
  values: [{ aggregate: "sum", column: "amount" }, { aggregate: "count" }],
  sort: [{ column: "day_month" }, { column: "product" }],
};

/** The gzipped size of the Worker bundle wrangler would deploy (minified). */
function bundleGzipBytes() {
  const out = mkdtempSync(join(tmpdir(), "bundle-"));
  try {
    const args = ["deploy", "--dry-run", "--minify", "--outdir", out];
    const result = spawnSync(process.execPath, [join(root, "node_modules", "wrangler", "bin", "wrangler.js"), ...args], {
      cwd: root,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`);
    return readdirSync(out)
      .filter((f) => f.endsWith(".js"))
      .reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** What the XLSX library brings into a bundle on its own (with fflate, which nothing else uses), minified and gzipped. */
async function xlsxLibraryGzipBytes() {
  const { build } = await import("esbuild");
  const result = await build({
    // The build src/lib/xlsx.ts uses; node:* are the runtime's own (nodejs_compat).
    stdin: { contents: 'export { default } from "write-excel-file/node";', resolveDir: root, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    external: ["node:*"],
    write: false,
  });
  return gzipSync(result.outputFiles[0].contents).length;
}

const server = await startServer({
  port,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000, BUILDER_REQUESTS_PER_MINUTE: 1000000, LOG_LEVEL: "warn" },
});
try {
  const api = (path, body) => postJson(server, path, body);

  const { blueprints } = await api("/api/get_customer_blueprints/", { customer_id: "acme-berlin" });
  const blueprint = blueprints.find((b) => b.name === "Sales data");
  if (!blueprint) throw new Error("npm start did not seed the demo blueprint 'Sales data'");
  const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.id, expires_in: 3600 });
  const bearer = { Authorization: `Bearer ${minted.token}`, "Content-Type": "application/json" };
  const post = (path, body, extra = {}) =>
    fetch(`${base}${path}`, { method: "POST", headers: { ...bearer, ...extra }, body: JSON.stringify(body) });
  // The /_dev/ routes need the admin token; the builder token whose query they compile rides along.
  const { Authorization } = adminHeaders(server);
  const dev = { Authorization, "X-Builder-Token": minted.token };

  /** acme-berlin's schema on D1 (as seeded) or on PostgreSQL (the demo script loads the same rows). */
  const mapTo = (kind) => mapCustomerData(base, "acme-berlin", kind);

  async function timedPost(path, body, extra = {}) {
    const { ms, value } = await timed(async () => {
      const response = await post(path, body, extra);
      return { response, answer: await response.json() };
    });
    const { response, answer } = value;
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(answer)}`);
    return { ms, response, answer };
  }

  async function measure(kind) {
    mapTo(kind);
    const compiled = await (await post(`/_dev/report-sql/${blueprint.embed_id}`, query, dev)).json();
    if (compiled.success !== 1) throw new Error(JSON.stringify(compiled));
    const floorBody = { binding: compiled.binding, kind: compiled.kind, sql: compiled.sql, params: compiled.params };
    const builder = [];
    const floor = [];
    let last;
    for (let i = 0; i <= runs; i++) {
      const a = await timedPost(`/report-builder/${blueprint.embed_id}/query`, query);
      const b = await timedPost("/_dev/floor/report-sql", floorBody, dev);
      if (i === 0) {
        // Same rows both ways (the floor's are untyped and one longer: limit + 1 at most).
        if (a.answer.row_count === 0 || Math.abs(b.answer.rows.length - a.answer.row_count) > 1)
          throw new Error(`rows differ: ${a.answer.row_count} vs ${b.answer.rows.length}`);
        continue;
      }
      builder.push(a.ms);
      floor.push(b.ms);
      last = a;
    }
    return {
      kind,
      builder: median(builder),
      floor: median(floor),
      rows: last.answer.row_count,
      d1Trips: last.response.headers.get("X-D1-Round-Trips"),
      dataTrips: last.response.headers.get("X-Data-Round-Trips"),
    };
  }

  const results = [await measure("d1"), await measure("postgres")];
  mapTo("d1"); // leave the demo as npm start seeds it
  const health = [];
  for (let i = 0; i < runs; i++) health.push((await timed(async () => (await fetch(`${base}/health`)).text())).ms);

  console.log(
    `\nReport builder query on the demo blueprint "Sales data" (acme-berlin: month × product, sum and count), median of ${runs}, Node ${process.version}`,
  );
  console.log(`  GET /health (the local runtime's own floor): ${median(health).toFixed(2)} ms`);
  for (const r of results) {
    console.log(
      `  ${r.kind.padEnd(8)} builder query ${r.builder.toFixed(2).padStart(6)} ms   same SQL straight through the binding ${r.floor.toFixed(2).padStart(6)} ms   ` +
        `${ratio(r.builder, r.floor)}× floor (+${(r.builder - r.floor).toFixed(2)} ms)   ${r.rows} rows   D1 round trips ${r.d1Trips}, data-source round trips ${r.dataTrips}`,
    );
  }
} finally {
  await server.stop();
}

const bundle = bundleGzipBytes();
const library = await xlsxLibraryGzipBytes();
console.log(
  `  Worker bundle (minified, gzip): ${(bundle / 1024).toFixed(1)} KiB; write-excel-file with fflate on its own: ${(library / 1024).toFixed(1)} KiB (${((100 * library) / bundle).toFixed(1)} % of the bundle)`,
);
