import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv } from "../helpers/api";
import { admin, bindings, call, createCustomer, unique, workspace } from "../helpers/dashboards";

// Report-builder queries go through the same query cache as panels, with the blueprint
// table's cache_ttl_seconds: customer, locked filters and query all in the key.

let ctx: { write: string; schema: number; demo: number };

beforeAll(async () => {
  await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS builder_orders (customer_id TEXT, product TEXT, amount REAL)").run();
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("builder-cache") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  ctx = { write, schema, demo };
});

/** A customer with orders, a blueprint over them (with the given TTL) and a builder token. */
async function builderFor(orders: [string, number][], ttl?: number, filters?: unknown[]) {
  const providedId = unique("builder");
  for (const [product, amount] of orders)
    await bindings.DEMO_DATA.prepare("INSERT INTO builder_orders VALUES (?, ?, ?)").bind(providedId, product, amount).run();
  await createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: ctx.demo } });
  const table = {
    table_name: "builder_orders",
    dataset_name: "orders",
    schema_id: ctx.schema,
    query: "SELECT * FROM builder_orders WHERE customer_id = {{customer.provided_id}}",
    columns: [
      { name: "product", type: "STRING" },
      { name: "amount", type: "FLOAT" },
    ],
    ...(ttl === undefined ? {} : { cache_ttl_seconds: ttl }),
  };
  const created = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: providedId, blueprint_name: "Orders", tables: [table] },
  });
  const blueprint = (await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: created.body.blueprint_id } }))
    .body.blueprint;
  const mint = async (locked?: unknown[]) =>
    (
      await call("POST", "/api/generate_embed_token/", {
        token: ctx.write,
        body: { provided_id: providedId, blueprint_id: blueprint.id, ...(locked ? { filters: locked } : {}) },
      })
    ).body.token as string;
  const token = await mint(filters);
  const query = async (body: unknown, as = token) => {
    const res = await callWithEnv({}, "POST", `/report-builder/${blueprint.embed_id}/query`, {
      body,
      headers: { Authorization: `Bearer ${as}` },
    });
    expect(res.status).toBe(200);
    return { cache: res.headers.get("X-Query-Cache"), trips: res.headers.get("X-Data-Round-Trips"), rows: res.body.rows };
  };
  return { providedId, query, mint };
}

const total = { dataset: "orders", values: [{ aggregate: "sum", column: "amount" }] };

describe("report-builder queries in the query cache", () => {
  it("answers a repeated query from the cache (miss, then hit without a data-source trip)", async () => {
    const b = await builderFor([["Seats", 100]], 600);
    expect(await b.query(total)).toEqual({ cache: "miss", trips: "1", rows: [{ sum_amount: 100 }] });
    await bindings.DEMO_DATA.prepare("INSERT INTO builder_orders VALUES (?, 'Seats', 1)").bind(b.providedId).run();
    expect(await b.query(total)).toEqual({ cache: "hit", trips: "0", rows: [{ sum_amount: 100 }] });
    // Another query on the same table: its own entry.
    const byProduct = { ...total, group_by: [{ column: "product" }] };
    expect(await b.query(byProduct)).toEqual({ cache: "miss", trips: "1", rows: [{ product: "Seats", sum_amount: 101 }] });
  });

  it("answers off without a TTL on the table", async () => {
    const b = await builderFor([["Seats", 5]]);
    expect(await b.query(total)).toMatchObject({ cache: "off", trips: "1" });
    expect(await b.query(total)).toMatchObject({ cache: "off", trips: "1" });
  });

  it("keys on locked filters: another locked filter misses and shows its own rows", async () => {
    const b = await builderFor(
      [
        ["Seats", 10],
        ["Storage", 20],
      ],
      600,
    );
    const seats = await b.mint([{ dataset: "orders", column: "product", op: "eq", value: "Seats" }]);
    const storage = await b.mint([{ dataset: "orders", column: "product", op: "eq", value: "Storage" }]);
    expect(await b.query(total, seats)).toEqual({ cache: "miss", trips: "1", rows: [{ sum_amount: 10 }] });
    expect(await b.query(total, storage)).toEqual({ cache: "miss", trips: "1", rows: [{ sum_amount: 20 }] });
    expect(await b.query(total, seats)).toEqual({ cache: "hit", trips: "0", rows: [{ sum_amount: 10 }] });
  });

  it("misses after the customer's cache is invalidated", async () => {
    const b = await builderFor([["Seats", 1]], 600);
    await b.query(total);
    await bindings.DEMO_DATA.prepare("INSERT INTO builder_orders VALUES (?, 'Seats', 2)").bind(b.providedId).run();
    expect((await call("POST", "/api/invalidate_cache/", { token: ctx.write, body: { provided_id: b.providedId } })).status).toBe(200);
    expect(await b.query(total)).toEqual({ cache: "miss", trips: "1", rows: [{ sum_amount: 3 }] });
  });
});
