import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { runSavedReport } from "../../src/report-builder/delivered";
import type { ApiResponse } from "../helpers/api";
import { bindings, call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// docs/report-builder.md: a builder lock belongs to the table (and column) it was minted on, not to
// a name. update_blueprint can move a name to another table or column; the token must then
// stop (401 invalid_embed_token), and saved reports under such a lock answer as broken (422).

const columns = [
  { name: "day", type: "DATE", display_name: "Day" },
  { name: "month", type: "STRING", display_name: "Month" },
  { name: "product", type: "STRING", display_name: "Product" },
  { name: "amount", type: "FLOAT", display_name: "Amount" },
  { name: "region", type: "STRING", display_name: "Region" },
];
const ORDERS_QUERY = "SELECT * FROM orders WHERE customer_id = {{customer.provided_id}}";
const orders = (schema: number) => ({ table_name: "orders", schema_id: schema, query: ORDERS_QUERY, columns, description: "Every order" });

let ctx: { write: string; schema: number; demo: number };
beforeAll(async () => {
  await seedOrders();
  const { write } = await workspace();
  const { schema, demo } = await sources();
  ctx = { write, schema, demo };
});

/** A customer with four products of orders, a blueprint over them and a token locked to Seats (and one without locks). */
async function lockedSetup() {
  const customer = unique("bound");
  await createCustomer(ctx.write, { provided_id: customer, name: "Bound", mapping: { [ctx.schema]: ctx.demo } });
  for (const product of ["Seats", "Storage", "Support", "Setup"])
    await bindings.DEMO_DATA.prepare("INSERT INTO orders VALUES (?, '2026-03-01', '2026-03', ?, 10, 'EU')").bind(customer, product).run();
  const created = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: customer, blueprint_name: "Sales", tables: [orders(ctx.schema)] },
  });
  expect(created.status).toBe(200);
  const got = await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: created.body.blueprint_id } });
  const blueprint = { id: got.body.blueprint.id as number, embedId: got.body.blueprint.embed_id as string };
  const mint = async (filters?: unknown[]) => {
    const res = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: customer, blueprint_id: blueprint.id, filters },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.token as string;
  };
  const locked = await mint([{ dataset: "orders", column: "product", op: "eq", value: "Seats" }]);
  const builder = (method: string, path: string, token: string, body?: unknown): Promise<ApiResponse> =>
    call(method, `/report-builder/${blueprint.embedId}${path}`, { body, headers: { Authorization: `Bearer ${token}` } });
  const update = (tables: unknown[]) =>
    call("POST", "/api/update_blueprint/", { token: ctx.write, body: { blueprint_id: blueprint.id, tables } });
  return { customer, blueprint, mint, locked, builder, update };
}

type Setup = Awaited<ReturnType<typeof lockedSetup>>;
const products = (res: ApiResponse) => new Set(res.body.rows.map((r: { product: string }) => r.product));

/** Every call and the page of a token refused as a stale lock: 401 invalid_embed_token, "ask for a new link", no rows. */
async function expectRefusedEverywhere(setup: Setup, datasets: string[]) {
  const calls: [string, string, unknown?][] = [
    ["GET", "/datasets"],
    ["GET", "/reports"],
  ];
  for (const dataset of datasets) {
    const query = { dataset, columns: ["product"] };
    calls.push(
      ["POST", "/query", query],
      ["POST", "/export", { query, format: "csv" }],
      ["POST", "/view", { query, chart: { type: "table" } }],
      ["POST", "/reports", { name: "All", query, chart: { type: "table" } }],
    );
  }
  for (const [method, path, body] of calls) {
    const res = await setup.builder(method, path, setup.locked, body);
    expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 401, code: "invalid_embed_token" });
    expect(res.body.error.message).toContain("ask for a new link");
  }
  const page = await call("GET", `/report-builder/${setup.blueprint.embedId}?token=${setup.locked}`);
  expect(page.status).toBe(401);
  expect(page.body).not.toContain("Storage");
}

describe("a builder lock is bound to its table and column, not to their names", () => {
  it("the review's swap: the locked table renamed and its dataset name given to another table → 401 everywhere", async () => {
    const setup = await lockedSetup();
    expect(products(await setup.builder("POST", "/query", setup.locked, { dataset: "orders", columns: ["product"] }))).toEqual(
      new Set(["Seats"]),
    );
    const swapped = [
      { ...orders(ctx.schema), dataset_name: "orders_2026" },
      { ...orders(ctx.schema), table_name: "orders_new", query: `${ORDERS_QUERY} AND amount > 0` },
    ];
    expect((await setup.update(swapped)).status).toBe(200);
    await expectRefusedEverywhere(setup, ["orders_2026", "orders"]);
    // Control: a token minted now locks the table now called orders, and a token without locks still reads both.
    const fresh = await setup.mint([{ dataset: "orders_2026", column: "product", op: "eq", value: "Seats" }]);
    expect(products(await setup.builder("POST", "/query", fresh, { dataset: "orders_2026", columns: ["product"] }))).toEqual(
      new Set(["Seats"]),
    );
  });

  it("a copy of the locked table under its name while the original is renamed → 401 (the same rows would be open under the new name)", async () => {
    const setup = await lockedSetup();
    const copied = [{ ...orders(ctx.schema), dataset_name: "orders_2026" }, orders(ctx.schema)];
    expect((await setup.update(copied)).status).toBe(200);
    await expectRefusedEverywhere(setup, ["orders_2026", "orders"]);
    // Minting a lock on either of two datasets that read the same table is refused: the other would stay open.
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: {
        provided_id: setup.customer,
        blueprint_id: setup.blueprint.id,
        filters: [{ dataset: "orders", column: "product", op: "eq", value: "Seats" }],
      },
    });
    expect(minted.status).toBe(400);
    expect(minted.body.error).toMatchObject({ code: "validation_error", field: "filters.0.dataset" });
  });

  it("a locked column renamed and its name given to another column → 401 everywhere", async () => {
    const setup = await lockedSetup();
    const moved = [
      {
        ...orders(ctx.schema),
        query: "SELECT day, month, region AS product, product AS item, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns: [...columns.filter((c) => c.name !== "region"), { name: "item", type: "STRING", display_name: "Item" }],
      },
    ];
    expect((await setup.update(moved)).status).toBe(200);
    await expectRefusedEverywhere(setup, ["orders"]);
  });

  it("a locked column retyped → 401 invalid_embed_token (not 400)", async () => {
    const setup = await lockedSetup();
    const retyped = [{ ...orders(ctx.schema), columns: columns.map((c) => (c.name === "product" ? { ...c, type: "INTEGER" } : c)) }];
    expect((await setup.update(retyped)).status).toBe(200);
    await expectRefusedEverywhere(setup, ["orders"]);
  });

  it("a plain edit that keeps the locked table keeps the token working and its lock holding (control)", async () => {
    const setup = await lockedSetup();
    const edited = [
      {
        ...orders(ctx.schema),
        description: "Every order, described anew",
        columns: columns.map((c) => (c.name === "product" ? { ...c, display_name: "Article" } : c)),
      },
      { table_name: "all_orders", dataset_name: "everything", schema_id: ctx.schema, columns: [{ name: "amount", type: "FLOAT" }] },
    ];
    expect((await setup.update(edited)).status).toBe(200);
    const res = await setup.builder("POST", "/query", setup.locked, { dataset: "orders", columns: ["product"] });
    expect(res.status).toBe(200);
    expect(products(res)).toEqual(new Set(["Seats"]));
    expect((await setup.builder("GET", "/datasets", setup.locked)).status).toBe(200);
    expect((await call("GET", `/report-builder/${setup.blueprint.embedId}?token=${setup.locked}`)).status).toBe(200);
  });

  it("a saved report keeps the binding of the lock it was saved under: after the swap it answers 422 as broken, after a plain edit it runs", async () => {
    const setup = await lockedSetup();
    const query = { dataset: "orders", columns: ["product"] };
    const saved = await setup.builder("POST", "/reports", setup.locked, { name: "Seats only", query, chart: { type: "table" } });
    expect(saved.status).toBe(200);
    // The fingerprint is the service's own: the report answers its locks as they were given.
    expect(saved.body.report.locked_filters).toEqual([{ dataset: "orders", column: "product", op: "eq", value: "Seats" }]);
    const reportId = saved.body.report.id as string;
    const unlocked = await setup.mint();
    const customerId = (await bindings.DB.prepare("SELECT id FROM customers WHERE provided_id = ?")
      .bind(setup.customer)
      .first<number>("id"))!;
    const db = createDatabase(bindings.DB);

    // Control: a plain edit keeps the report running, its lock applied.
    expect((await setup.update([{ ...orders(ctx.schema), description: "Edited" }])).status).toBe(200);
    const exported = await setup.builder("POST", "/export", unlocked, { query, report_id: reportId, format: "csv" });
    expect(exported.status).toBe(200);
    expect(String(exported.body).trim().split(/\r?\n/).slice(1)).toEqual(["Seats"]);
    expect((await runSavedReport(db, env as never, { reportId, customerId })).result.rows).toEqual([{ product: "Seats" }]);

    const swapped = [
      { ...orders(ctx.schema), dataset_name: "orders_2026" },
      { ...orders(ctx.schema), table_name: "orders_new", query: `${ORDERS_QUERY} AND amount > 0` },
    ];
    expect((await setup.update(swapped)).status).toBe(200);
    const run = await setup.builder("POST", "/export", unlocked, {
      query: { dataset: "orders_2026", columns: ["product"] },
      report_id: reportId,
      format: "csv",
    });
    expect({ status: run.status, code: run.body.error?.code }).toEqual({ status: 422, code: "dataset_data_unavailable" });
    await expect(runSavedReport(db, env as never, { reportId, customerId })).rejects.toMatchObject({ code: "dataset_data_unavailable" });
  });
});
