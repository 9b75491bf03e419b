import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { adminClient } from "./admin-client.mjs";
import { readDevVars } from "./dev-vars.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The demo schema "sales" of the seeded workspace: what the demo customers' mapping points elsewhere. */
const SCHEMA_ID = 1;
/** The D1 demo data source, what `--d1` maps back to. */
const D1_SOURCE_ID = "1";

/**
 * The demo on one of the vendor's databases (`npm run demo:postgres`, `demo:mysql`,
 * `demo:clickhouse`, with `npm start` running): what every engine does alike — the options
 * (`--base`, `--d1`, the engine's own), the tokens of `.dev.vars`, registering each data source
 * through the admin API (idempotent), mapping each demo customer's schema to it and rendering
 * its demo dashboard once — around what the engine does itself:
 *   - `customers(demo)`: the demo customers it maps;
 *   - `load(demo)`: puts the demo rows in (not with `--d1`); `demo.fail(message)` ends the run;
 *   - `source(customer, demo)`: `{ body, update, describe }` — the data source to register for
 *     the customer, the fields to update when it already exists (else it is kept), and the
 *     line to print of the registered source;
 *   - `label(customer)`: where the customer reads from now;
 *   - `after(demo)`: anything more once the customers are mapped (not with `--d1`).
 * `demo.onStop(fn)` runs `fn` when the run ends or fails; `demo.keepRunning()` keeps the
 * process (and what it started) alive until Ctrl-C.
 */
export async function runDemo(engine) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const base = option("--base", process.env.CUSTOMER_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`);
  const backToD1 = args.includes("--d1");

  const vars = readDevVars(join(root, ".dev.vars"));
  if (!vars.ADMIN_TOKEN || !vars.DEV_API_TOKEN) {
    console.error("No .dev.vars with ADMIN_TOKEN and DEV_API_TOKEN: run `npm start` first.");
    process.exit(1);
  }
  const admin = adminClient(base, vars.ADMIN_TOKEN);
  const api = async (path, body) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return response.json();
  };

  const stops = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn();
  };
  let keep = false;
  const demo = {
    root,
    base,
    backToD1,
    option,
    admin,
    onStop: (fn) => stops.push(fn),
    keepRunning: () => {
      keep = true;
    },
    fail: async (...lines) => {
      for (const line of lines) console.error(line);
      await stop();
      process.exit(1);
    },
    /** Registers the data source `body` (its provided_id), or updates an existing one with `update`; answers it as listed. */
    register: async (body, update) => {
      const created = await admin("POST", "/admin/data_sources/", body);
      if (created.success !== 1 && created.error?.code !== "data_source_exists")
        await demo.fail(`Could not register the data source ${body.provided_id}: ${JSON.stringify(created.error)}`);
      if (created.error?.code === "data_source_exists" && update)
        await admin("POST", "/admin/update_data_source/", { provided_id: body.provided_id, ...update });
      const { data_sources } = await admin("GET", "/admin/data_sources/");
      return data_sources.find((s) => s.provided_id === body.provided_id);
    },
  };

  const customers = engine.customers(demo);
  if (!backToD1) await engine.load(demo);
  const sourceIds = new Map(customers.map((customer) => [customer, D1_SOURCE_ID]));
  if (!backToD1) {
    for (const customer of customers) {
      const { body, update, describe } = engine.source(customer, demo);
      const source = await demo.register(body, update);
      sourceIds.set(customer, String(source.id));
      console.log(describe(source));
    }
  }

  for (const customer of customers) {
    const updated = await api("/api/update_customer/", { provided_id: customer, mapping: { [SCHEMA_ID]: sourceIds.get(customer) } });
    if (updated.success !== 1) await demo.fail(`Could not map customer ${customer}: ${JSON.stringify(updated.error)}`);
    const { customer: viewer } = await api("/api/get_customer/", { provided_id: customer });
    const url = `${base.replace("127.0.0.1", "localhost")}/embed/sales-overview?customer_token=${viewer.token}`;
    const page = await fetch(url);
    const html = await page.text();
    console.log(`Customer ${customer} now reads schema ${SCHEMA_ID} from ${backToD1 ? "D1 (DEMO_DATA)" : engine.label(customer)}.`);
    console.log(`  Demo dashboard: ${url}`);
    console.log(
      `  Render: HTTP ${page.status}, data round trips per source ${page.headers.get("X-Data-Round-Trips-By-Source")}, connections ${page.headers.get("X-Data-Connections")}${html.includes('class="message message-failed"') ? ", a panel failed" : ""}`,
    );
  }

  if (!backToD1) await engine.after?.(demo);
  if (!keep) {
    await stop();
    return;
  }
  const end = async () => {
    await stop();
    process.exit(0);
  };
  process.once("SIGINT", end);
  process.once("SIGTERM", end);
  setInterval(() => {}, 1 << 30);
}
