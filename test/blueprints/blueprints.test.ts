import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, roundTrips, unique, workspace } from "../helpers/api";

async function setup() {
  const ctx = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("schema") })).body.schema.id as number;
  const customer = unique("bp-customer");
  await createCustomer(ctx.write, { provided_id: customer });
  return { ...ctx, schema, customer };
}

const table = (schema: number, extra: Record<string, unknown> = {}) => ({
  table_name: "orders",
  schema_id: schema,
  columns: [
    { name: "id", type: "INTEGER" },
    { name: "amount", type: "FLOAT", display_name: "Amount (EUR)", can_be_grouped: false },
  ],
  ...extra,
});

const post = (token: string, path: string, body: unknown) => call("POST", path, { token, body });

describe("blueprints", () => {
  it("creates a blueprint and reads it back with defaults filled in", async () => {
    const { write, read, schema, customer } = await setup();
    const created = await post(write, "/api/create_blueprint/", {
      customer_id: customer,
      blueprint_name: "Sales",
      tables: [table(schema), table(schema, { table_name: 'we"ird', query: "SELECT 1 AS x", dataset_name: "Odd", description: "Odd one" })],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ success: 1, blueprint_id: expect.any(Number) });
    expect(roundTrips(created)).toBeLessThanOrEqual(2);

    const got = await post(read, "/api/get_blueprint/", { blueprint_id: created.body.blueprint_id });
    expect(roundTrips(got)).toBe(1);
    expect(got.body.blueprint).toEqual({
      id: created.body.blueprint_id,
      embed_id: expect.stringMatching(/^[a-z0-9]{20}$/),
      name: "Sales",
      customer_id: customer,
      tables: [
        {
          table_name: "orders",
          schema_id: schema,
          query: 'SELECT * FROM "orders"',
          columns: [
            { name: "id", type: "INTEGER", display_name: "id", can_be_grouped: true },
            { name: "amount", type: "FLOAT", display_name: "Amount (EUR)", can_be_grouped: false },
          ],
          dataset_name: "orders",
          description: null,
        },
        {
          table_name: 'we"ird',
          schema_id: schema,
          query: "SELECT 1 AS x",
          columns: expect.any(Array),
          dataset_name: "Odd",
          description: "Odd one",
        },
      ],
    });
  });

  it("lists a customer's blueprints with id, embed_id and name", async () => {
    const { write, read, schema, customer } = await setup();
    const a = await post(write, "/api/create_blueprint/", { customer_id: customer, blueprint_name: "A", tables: [table(schema)] });
    const b = await post(write, "/api/create_blueprint/", { customer_id: customer, blueprint_name: "B", tables: [table(schema)] });
    const list = await post(read, "/api/get_customer_blueprints/", { customer_id: customer });
    expect(roundTrips(list)).toBe(1);
    expect(list.body).toEqual({
      success: 1,
      blueprints: [
        { id: a.body.blueprint_id, embed_id: expect.any(String), name: "A" },
        { id: b.body.blueprint_id, embed_id: expect.any(String), name: "B" },
      ],
    });
    expect(list.body.blueprints[0].embed_id).not.toBe(list.body.blueprints[1].embed_id);
  });

  it("answers an empty list for a customer without blueprints, 404 for an unknown customer", async () => {
    const { read, customer } = await setup();
    expect((await post(read, "/api/get_customer_blueprints/", { customer_id: customer })).body.blueprints).toEqual([]);
    const missing = await post(read, "/api/get_customer_blueprints/", { customer_id: "nobody" });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "customer_not_found", field: "customer_id" });
  });

  it("update_blueprint replaces all tables (no merge)", async () => {
    const { write, schema, customer } = await setup();
    const created = await post(write, "/api/create_blueprint/", {
      customer_id: customer,
      blueprint_name: "Replace",
      tables: [table(schema), table(schema, { table_name: "customers" })],
    });
    const id = created.body.blueprint_id;
    const updated = await post(write, "/api/update_blueprint/", {
      blueprint_id: id,
      tables: [{ table_name: "products", schema_id: schema, columns: [{ name: "sku", type: "STRING" }] }],
    });
    expect(updated.body).toEqual({ success: 1 });
    expect(roundTrips(updated)).toBeLessThanOrEqual(2);
    const got = await post(write, "/api/get_blueprint/", { blueprint_id: id });
    expect(got.body.blueprint.name).toBe("Replace");
    expect(got.body.blueprint.tables.map((t: { table_name: string }) => t.table_name)).toEqual(["products"]);
  });

  it("reaches blueprints only through a token that sees the customer", async () => {
    const { write, schema, customer } = await setup();
    const other = await workspace();
    const created = await post(write, "/api/create_blueprint/", {
      customer_id: customer,
      blueprint_name: "Private",
      tables: [table(schema)],
    });
    const id = created.body.blueprint_id;
    for (const [path, body] of [
      ["/api/get_blueprint/", { blueprint_id: id }],
      ["/api/update_blueprint/", { blueprint_id: id, tables: [table(schema)] }],
    ] as const) {
      const res = await post(other.write, path, body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("blueprint_not_found");
    }
    const list = await post(other.write, "/api/get_customer_blueprints/", { customer_id: customer });
    expect(list.status).toBe(404);
    const create = await post(other.write, "/api/create_blueprint/", {
      customer_id: customer,
      blueprint_name: "x",
      tables: [table(schema)],
    });
    expect(create.status).toBe(404);
    expect(create.body.error.code).toBe("customer_not_found");
    expect((await post(write, "/api/get_blueprint/", { blueprint_id: id })).body.blueprint.tables).toHaveLength(1);
  });

  it("is removed with its customer", async () => {
    const { write, schema } = await setup();
    const owner = await createCustomer(write, { provided_id: unique("bp-owner") });
    const created = await post(write, "/api/create_blueprint/", {
      customer_id: owner.provided_id,
      blueprint_name: "Gone",
      tables: [table(schema)],
    });
    await call("DELETE", "/api/delete_customer/", { token: write, body: { current_token: owner.token } });
    const got = await post(write, "/api/get_blueprint/", { blueprint_id: created.body.blueprint_id });
    expect(got.status).toBe(404);
    const { env } = await import("cloudflare:test");
    const row = await (env as unknown as { DB: D1Database }).DB.prepare("SELECT count(*) AS n FROM blueprints WHERE id = ?")
      .bind(created.body.blueprint_id)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("refuses a read token on create and update (403 read_only_token)", async () => {
    const { read, schema, customer } = await setup();
    const res = await post(read, "/api/create_blueprint/", { customer_id: customer, blueprint_name: "x", tables: [table(schema)] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("read_only_token");
  });
});

describe("blueprint validation names the offending element and stores nothing", () => {
  const cases: [string, (schema: number, customer: string) => Record<string, unknown>, number, string, string][] = [
    ["a missing customer_id", (s) => ({ blueprint_name: "x", tables: [table(s)] }), 400, "validation_error", "customer_id"],
    ["a missing blueprint_name", (s, c) => ({ customer_id: c, tables: [table(s)] }), 400, "validation_error", "blueprint_name"],
    ["missing tables", (_s, c) => ({ customer_id: c, blueprint_name: "x" }), 400, "validation_error", "tables"],
    ["an empty table list", (_s, c) => ({ customer_id: c, blueprint_name: "x", tables: [] }), 400, "validation_error", "tables"],
    [
      "an empty table_name",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s), table(s, { table_name: "" })] }),
      400,
      "validation_error",
      "tables.1.table_name",
    ],
    [
      "a schema_id that is not a number",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s, { schema_id: "1" })] }),
      400,
      "validation_error",
      "tables.0.schema_id",
    ],
    [
      "a table without columns",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s, { columns: [] })] }),
      400,
      "validation_error",
      "tables.0.columns",
    ],
    [
      "a column without a name",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s, { columns: [{ type: "STRING" }] })] }),
      400,
      "validation_error",
      "tables.0.columns.0.name",
    ],
    [
      "an unknown column type",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s), table(s, { columns: [{ name: "a", type: "TEXT" }] })] }),
      400,
      "validation_error",
      "tables.1.columns.0.type",
    ],
    [
      "a can_be_grouped that is not boolean",
      (s, c) => ({
        customer_id: c,
        blueprint_name: "x",
        tables: [table(s, { columns: [{ name: "a", type: "DATE", can_be_grouped: "yes" }] })],
      }),
      400,
      "validation_error",
      "tables.0.columns.0.can_be_grouped",
    ],
    [
      "duplicate column names",
      (s, c) => ({
        customer_id: c,
        blueprint_name: "x",
        tables: [
          table(s, {
            columns: [
              { name: "a", type: "DATE" },
              { name: "b", type: "DATE" },
              { name: "a", type: "STRING" },
            ],
          }),
        ],
      }),
      400,
      "validation_error",
      "tables.0.columns.2.name",
    ],
    [
      "an unknown customer",
      (s) => ({ customer_id: "nobody", blueprint_name: "x", tables: [table(s)] }),
      404,
      "customer_not_found",
      "customer_id",
    ],
    [
      "an unknown schema",
      (s, c) => ({ customer_id: c, blueprint_name: "x", tables: [table(s), table(999999)] }),
      422,
      "unknown_schema",
      "tables.1.schema_id",
    ],
    [
      "a query that writes",
      (s, c) => ({
        customer_id: c,
        blueprint_name: "x",
        tables: [table(s, { query: "SELECT 1 AS id" }), table(s, { query: "DELETE FROM orders RETURNING *" })],
      }),
      422,
      "query_not_read_only",
      "tables.1.query",
    ],
    [
      "a write hidden behind a quote in a comment",
      (s, c) => ({
        customer_id: c,
        blueprint_name: "x",
        tables: [table(s, { query: "WITH x AS (SELECT 1 -- '\n) DELETE FROM orders RETURNING * -- '" })],
      }),
      422,
      "query_not_read_only",
      "tables.0.query",
    ],
  ];

  it.each(cases)("rejects %s on create", async (_name, body, status, code, field) => {
    const { write, schema, customer } = await setup();
    const res = await post(write, "/api/create_blueprint/", body(schema, customer));
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    expect((await post(write, "/api/get_customer_blueprints/", { customer_id: customer })).body.blueprints).toEqual([]);
  });

  it("accepts a read-only query with a trailing ';' and comments holding quotes (the control)", async () => {
    const { write, schema, customer } = await setup();
    const query = "SELECT id, amount FROM orders -- don't worry\nWHERE customer_id = {{customer.provided_id}};";
    const created = await post(write, "/api/create_blueprint/", {
      customer_id: customer,
      blueprint_name: "Fine",
      tables: [table(schema, { query })],
    });
    expect(created.status).toBe(200);
    const got = await post(write, "/api/get_blueprint/", { blueprint_id: created.body.blueprint_id });
    expect(got.body.blueprint.tables[0].query).toBe(query);
  });

  it("rejects bad tables on update and keeps the old ones", async () => {
    const { write, schema, customer } = await setup();
    const created = await post(write, "/api/create_blueprint/", { customer_id: customer, blueprint_name: "Keep", tables: [table(schema)] });
    const id = created.body.blueprint_id;
    const before = (await post(write, "/api/get_blueprint/", { blueprint_id: id })).body.blueprint;
    const bad = await post(write, "/api/update_blueprint/", {
      blueprint_id: id,
      tables: [table(schema, { columns: [{ name: "a", type: "JSON" }] })],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("tables.0.columns.0.type");
    const unknown = await post(write, "/api/update_blueprint/", { blueprint_id: id, tables: [table(123456)] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_schema", field: "tables.0.schema_id" });
    const writing = await post(write, "/api/update_blueprint/", {
      blueprint_id: id,
      tables: [table(schema), table(schema, { query: "SELECT 1; DROP TABLE orders" })],
    });
    expect(writing.status).toBe(422);
    expect(writing.body.error).toMatchObject({ code: "query_not_read_only", field: "tables.1.query" });
    const missing = await post(write, "/api/update_blueprint/", { blueprint_id: 987654, tables: [table(schema)] });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "blueprint_not_found", field: "blueprint_id" });
    const noId = await post(write, "/api/update_blueprint/", { tables: [table(schema)] });
    expect(noId.body.error).toMatchObject({ code: "validation_error", field: "blueprint_id" });
    expect((await post(write, "/api/get_blueprint/", { blueprint_id: id })).body.blueprint).toEqual(before);
  });
});
