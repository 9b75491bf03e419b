#!/usr/bin/env node
// Server-side render time per demo dashboard: median of 20 in-process renders in Node
// (where the clock measures CPU work; inside workerd timers do not advance during compute).
//   full  = customer/version lookup + every panel query (local D1 via wrangler's proxy) + HTML
//   html  = the rendering step alone (charts to SVG, tables, KPIs) from already-fetched rows
//   charts kept = the same step again, its charts drawn once before (src/dashboards/charts.ts)
// "full" and "html" forget the charts drawn before each render: every chart is drawn anew.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { demoDataSql, workspaceSeedSql } from "../scripts/lib/seed.mjs";
import { importBundled, interleave, kib, median, root, timed } from "./lib/harness.mjs";

const RUNS = 20;
const lib = await importBundled("bench/render-entry.ts");
const work = mkdtempSync(join(tmpdir(), "render-bench-"));

const { env, dispose } = await getPlatformProxy({ configPath: join(root, "wrangler.toml"), persist: { path: join(work, "state") } });
try {
  for (const file of readdirSync(join(root, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of readFileSync(join(root, "migrations", file), "utf8").split("--> statement-breakpoint")) {
      if (statement.trim()) await env.DB.prepare(statement).run();
    }
  }
  const run = async (db, text) => {
    for (const statement of text.split(/;\s*\n/)) if (statement.trim()) await db.prepare(statement).run();
  };
  await run(env.DB, workspaceSeedSql({ devApiToken: "bench", customerTokenSecret: "bench" }));
  await run(env.DEMO_DATA, demoDataSql());
  const db = lib.createDatabase(env.DB);

  console.log(`\nServer-side render time, median of ${RUNS} (Node ${process.version}); viewer: acme-berlin`);
  for (const file of readdirSync(join(root, "examples", "dashboards"))
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const example = JSON.parse(readFileSync(join(root, "examples", "dashboards", file), "utf8"));
    const definition = lib.DashboardDefinition.parse(example.definition);
    await lib.createOrReplaceDashboard(db, { embed_id: example.embed_id, name: example.name });
    await lib.saveVersion(db, { embed_id: example.embed_id, definition });
    const request = {
      embedId: example.embed_id,
      customer: lib.eq(lib.customers.providedId, "acme-berlin"),
      versions: lib.newest,
      variables: {},
    };

    const context = {
      customer: {
        provided_id: "acme-berlin",
        name: "Acme Berlin",
        properties: { currency: "EUR", region: "EU", plan: "enterprise", city: "Berlin" },
      },
      variables: Object.fromEntries(definition.variables.map((v) => [v.name, v.default])),
    };
    const results = await lib.runPanels(env, definition, { 1: "1" }, [{ id: 1, binding: "DEMO_DATA" }], context);
    // Charts are drawn for the page width: a phone (360 px) and a desktop (1280 px).
    for (const width of [360, 1280]) {
      const renderStep = () =>
        lib.renderDashboard({
          definition,
          dashboardName: example.name,
          context,
          isDemo: true,
          results,
          width,
          view: lib.BUILTIN_PRESENTATION,
        });
      let html = "";
      // Charts forgotten before each render: every chart drawn anew (a first view). The first round warms.
      const { full } = await interleave(
        RUNS,
        {
          full: async () => {
            lib.forgetDrawnCharts();
            const { ms, value } = await timed(() => lib.renderForCustomer(db, env, request, { width }));
            html = value;
            return ms;
          },
        },
        { warmup: 1 },
      );
      // The rendering step alone, from rows fetched once: drawn anew, and again (charts kept).
      const { render, repeat } = await interleave(
        RUNS,
        {
          render: async () => {
            lib.forgetDrawnCharts();
            return (await timed(renderStep)).ms;
          },
          repeat: async () => (await timed(renderStep)).ms,
        },
        { warmup: 1 },
      );
      console.log(
        `  ${example.embed_id.padEnd(16)} ${String(width).padStart(4)} px  full ${median(full).toFixed(1).padStart(6)} ms   html only ${median(render).toFixed(1).padStart(6)} ms   ` +
          `charts kept ${median(repeat).toFixed(1).padStart(5)} ms   ${definition.panels.length} panels, ${kib(html.length)} HTML`,
      );
    }
  }
} finally {
  await dispose();
  rmSync(work, { recursive: true, force: true });
}
