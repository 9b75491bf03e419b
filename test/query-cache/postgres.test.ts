import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv } from "../helpers/api";
import { admin, createCustomer, dashboard, kpi, panelText, unique, workspace } from "../helpers/dashboards";
import { onWarehouse } from "../helpers/warehouse";

// PostgreSQL panels (the real local PostgreSQL behind the WAREHOUSE Hyperdrive binding) are
// cached exactly like D1 ones: the layer sits around every data-source runner.
const S = "query_cache_tests";

let ctx: { write: string; schema: number; pg: number };

beforeAll(async () => {
  await onWarehouse(
    `DROP SCHEMA IF EXISTS ${S} CASCADE; CREATE SCHEMA ${S}; CREATE TABLE ${S}.orders (customer_id text NOT NULL, amount numeric(12,2) NOT NULL);`,
  );
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("warehouse") })).body.schema.id as number;
  const pg = (await admin("POST", "/admin/data_sources/", { name: "Warehouse", binding: "WAREHOUSE", kind: "postgres" })).body.data_source
    .id as number;
  ctx = { write, schema, pg };
});

async function view(embedId: string, token: string) {
  const res = await callWithEnv({}, "GET", `/embed/${embedId}?customer_token=${token}`);
  expect(res.status).toBe(200);
  return {
    cache: res.headers.get("X-Query-Cache"),
    trips: res.headers.get("X-Data-Round-Trips"),
    connections: res.headers.get("X-Data-Connections"),
    text: panelText(res.body, "revenue"),
  };
}

describe("query cache on a PostgreSQL data source", () => {
  it("serves a repeated view without a connection, keeps customers apart, and misses after invalidation", async () => {
    const alpha = await createCustomer(ctx.write, { provided_id: unique("pg-alpha"), mapping: { [ctx.schema]: ctx.pg } });
    const beta = await createCustomer(ctx.write, { provided_id: unique("pg-beta"), mapping: { [ctx.schema]: ctx.pg } });
    await onWarehouse(`INSERT INTO ${S}.orders VALUES ($1, 100), ($2, 7)`, [alpha.provided_id, beta.provided_id]);
    const embedId = await dashboard({
      cache_ttl_seconds: 600,
      panels: [kpi("revenue", ctx.schema, `SELECT SUM(amount) AS value FROM ${S}.orders WHERE customer_id = {{customer.provided_id}}`)],
    });

    expect(await view(embedId, alpha.token)).toEqual({ cache: "miss", trips: "2", connections: "1", text: "revenue 100" });
    await onWarehouse(`INSERT INTO ${S}.orders VALUES ($1, 5), ($2, 5)`, [alpha.provided_id, beta.provided_id]);
    // Hit: the cached value, no connection opened, no trip.
    expect(await view(embedId, alpha.token)).toEqual({ cache: "hit", trips: "0", connections: "0", text: "revenue 100" });
    // Another customer of the same data source: its own entry, its own rows.
    expect(await view(embedId, beta.token)).toEqual({ cache: "miss", trips: "2", connections: "1", text: "revenue 12" });

    const invalidated = await callWithEnv({}, "POST", "/api/invalidate_cache/", {
      token: ctx.write,
      body: { provided_id: alpha.provided_id },
    });
    expect(invalidated.status).toBe(200);
    expect(await view(embedId, alpha.token)).toEqual({ cache: "miss", trips: "2", connections: "1", text: "revenue 105" });
    expect(await view(embedId, beta.token)).toMatchObject({ cache: "hit", text: "revenue 12" });
  });

  it("never keeps a failing PostgreSQL query", async () => {
    const viewer = await createCustomer(ctx.write, { provided_id: unique("pg-fail"), mapping: { [ctx.schema]: ctx.pg } });
    const table = `${S}.late_${Date.now()}`;
    const embedId = await dashboard({
      cache_ttl_seconds: 600,
      panels: [kpi("revenue", ctx.schema, `SELECT count(*) AS value FROM ${table}`)],
    });
    const failing = await view(embedId, viewer.token);
    expect(failing.cache).toBe("miss");
    expect(failing.text).toContain("does not exist");
    await onWarehouse(`CREATE TABLE ${table} (x int); INSERT INTO ${table} VALUES (1), (2), (3);`);
    expect(await view(embedId, viewer.token)).toMatchObject({ cache: "miss", text: "revenue 3" });
    expect(await view(embedId, viewer.token)).toMatchObject({ cache: "hit", text: "revenue 3" });
  });
});
