import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, unique, workspace } from "../helpers/api";

// A blueprint table's cache_ttl_seconds: how long a report-builder query's result on that
// table is served from the cache near the viewer.

async function setup() {
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("schema") })).body.schema.id as number;
  const customer = unique("bp-ttl");
  await createCustomer(write, { provided_id: customer });
  return { write, schema, customer };
}

const table = (schema: number, extra: Record<string, unknown> = {}) => ({
  table_name: "orders",
  schema_id: schema,
  columns: [{ name: "amount", type: "FLOAT" }],
  ...extra,
});

describe("blueprint tables: cache_ttl_seconds", () => {
  it("stores 0–86400 and reads it back; a table without it reads back without it", async () => {
    const { write, schema, customer } = await setup();
    const created = await call("POST", "/api/create_blueprint/", {
      token: write,
      body: {
        customer_id: customer,
        blueprint_name: "Cached",
        tables: [
          table(schema, { cache_ttl_seconds: 300 }),
          table(schema, { table_name: "plain" }),
          table(schema, { table_name: "max", cache_ttl_seconds: 86_400 }),
        ],
      },
    });
    expect(created.status).toBe(200);
    const got = await call("POST", "/api/get_blueprint/", { token: write, body: { blueprint_id: created.body.blueprint_id } });
    const [cached, plain, max] = got.body.blueprint.tables;
    expect(cached.cache_ttl_seconds).toBe(300);
    expect(plain).not.toHaveProperty("cache_ttl_seconds");
    expect(max.cache_ttl_seconds).toBe(86_400);

    const updated = await call("POST", "/api/update_blueprint/", {
      token: write,
      body: { blueprint_id: created.body.blueprint_id, tables: [table(schema, { cache_ttl_seconds: 0 })] },
    });
    expect(updated.status).toBe(200);
    const again = await call("POST", "/api/get_blueprint/", { token: write, body: { blueprint_id: created.body.blueprint_id } });
    expect(again.body.blueprint.tables[0].cache_ttl_seconds).toBe(0);
  });

  it("refuses a value outside 0–86400 or not an integer (400 validation_error on tables.<i>.cache_ttl_seconds); nothing is stored", async () => {
    const { write, schema, customer } = await setup();
    for (const bad of [-1, 86_401, 2.5, "60", null]) {
      const res = await call("POST", "/api/create_blueprint/", {
        token: write,
        body: { customer_id: customer, blueprint_name: "Bad", tables: [table(schema), table(schema, { cache_ttl_seconds: bad })] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "tables.1.cache_ttl_seconds" });
    }
    const list = await call("POST", "/api/get_customer_blueprints/", { token: write, body: { customer_id: customer } });
    expect(list.body.blueprints).toEqual([]);
  });
});
