import { env } from "cloudflare:test";
import { createDatabase } from "../../src/db/client";
import readXlsxFile from "read-excel-file/universal";
import { runSavedReport } from "../../src/report-builder/delivered";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv, type ApiResponse } from "../helpers/api";
import { admin, bindings, call, createCustomer, dashboard, kpi, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// The report builder's JSON API end to end: minted tokens, real D1 data sources, saved reports
// in the real D1, the vendor's operations.

const columns = [
  { name: "day", type: "DATE", display_name: "Day" },
  { name: "month", type: "STRING", display_name: "Month" },
  { name: "product", type: "STRING", display_name: "Product" },
  { name: "amount", type: "FLOAT", display_name: "Amount" },
  { name: "region", type: "STRING", display_name: "Region", can_be_grouped: false },
];
const tables = (schema: number) => [
  {
    table_name: "orders",
    schema_id: schema,
    query: "SELECT * FROM orders WHERE customer_id = {{customer.provided_id}}",
    columns,
    description: "Every order",
  },
  { table_name: "all_orders", dataset_name: "everything", schema_id: schema, columns: [{ name: "amount", type: "FLOAT" }] },
];

let ctx: {
  write: string;
  read: string;
  schema: number;
  demo: string;
  blueprint: number;
  embedId: string;
  betaBlueprint: number;
  betaEmbedId: string;
  alpha: string;
  beta: string;
};

async function blueprintFor(token: string, customer: string, schema: number) {
  const res = await call("POST", "/api/create_blueprint/", {
    token,
    body: { customer_id: customer, blueprint_name: "Sales data", tables: tables(schema) },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  const id = res.body.blueprint_id ?? res.body.blueprint?.id ?? res.body.id;
  const got = await call("POST", "/api/get_blueprint/", { token, body: { blueprint_id: id } });
  return { id: got.body.blueprint.id as number, embedId: got.body.blueprint.embed_id as string };
}

beforeAll(async () => {
  await seedOrders();
  await bindings.DEMO_DATA.prepare(`INSERT INTO orders VALUES ('alpha','2026-02-09','2026-02','=HYPERLINK("http://x")',-5,'EU')`).run();
  const { write, read } = await workspace();
  const { schema, demo } = await sources();
  // seedOrders' customers are named alpha and beta in the data; provided_ids must be unique per test file run.
  await createCustomer(write, { provided_id: "alpha", name: "Alpha", mapping: { [schema]: demo } });
  await createCustomer(write, { provided_id: "beta", name: "Beta", mapping: { [schema]: demo } });
  const a = await blueprintFor(write, "alpha", schema);
  const b = await blueprintFor(write, "beta", schema);
  ctx = {
    write,
    read,
    schema,
    demo: String(demo),
    blueprint: a.id,
    embedId: a.embedId,
    betaBlueprint: b.id,
    betaEmbedId: b.embedId,
    alpha: "alpha",
    beta: "beta",
  };
});

async function mint(body: Record<string, unknown>, token = ctx.write) {
  return call("POST", "/api/generate_embed_token/", { token, body: { provided_id: ctx.alpha, blueprint_id: ctx.blueprint, ...body } });
}

async function builderToken(body: Record<string, unknown> = {}): Promise<string> {
  const res = await mint(body);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.token;
}

function builder(method: string, path: string, token: string, body?: unknown, embedId = ctx.embedId): Promise<ApiResponse> {
  return call(method, `/report-builder/${embedId}${path}`, { body, headers: { Authorization: `Bearer ${token}` } });
}

const byProduct = { dataset: "orders", group_by: [{ column: "product" }], values: [{ aggregate: "sum", column: "amount" }] };

function expectError(res: ApiResponse, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status, code, field });
}

describe("generate_embed_token with blueprint_id", () => {
  it("mints a builder token whose embed_url opens /report-builder/<blueprint embed_id> (a read token may mint)", async () => {
    const res = await mint({ user_id: "u-1", can_save: false, expires_in: 600 }, ctx.read);
    expect(res.status).toBe(200);
    expect(res.body.embed_url).toBe(`http://api.test/report-builder/${ctx.embedId}?token=${res.body.token}`);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(590_000);
  });

  it("a read token may mint only a token that cannot save: can_save absent or true answers 403 read_only_token", async () => {
    expectError(await mint({ user_id: "u-1" }, ctx.read), 403, "read_only_token");
    expectError(await mint({ can_save: true }, ctx.read), 403, "read_only_token");
    // Controls: the read token's view-only token lists and runs but cannot save; a write token mints a saving one.
    const viewer = await mint({ can_save: false }, ctx.read);
    expect(viewer.status).toBe(200);
    expect((await builder("GET", "/datasets", viewer.body.token)).status).toBe(200);
    const save = { name: "r", query: byProduct, chart: { type: "bar", x: "product", y: ["sum_amount"] } };
    expectError(await builder("POST", "/reports", viewer.body.token, save), 403, "saving_not_allowed");
    const saver = await mint({});
    expect(saver.status).toBe(200);
    expect((await builder("POST", "/reports", saver.body.token, save)).status).toBe(200);
  });

  it("takes exactly one of dashboard_embed_id or blueprint_id (400 on dashboard_embed_id when neither, on blueprint_id when both)", async () => {
    const neither = await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: ctx.alpha } });
    expectError(neither, 400, "validation_error", "dashboard_embed_id");
    const both = await mint({ dashboard_embed_id: "sales-overview" });
    expectError(both, 400, "validation_error", "blueprint_id");
    expect((await mint({})).status).toBe(200);
  });

  it("refuses a blueprint of another customer (404 blueprint_not_found) and an unknown customer (404 customer_not_found)", async () => {
    expectError(await mint({ blueprint_id: ctx.betaBlueprint }), 404, "blueprint_not_found", "blueprint_id");
    expectError(await mint({ provided_id: "nobody" }), 404, "customer_not_found", "provided_id");
    expect((await mint({ provided_id: ctx.beta, blueprint_id: ctx.betaBlueprint })).status).toBe(200);
  });

  it("checks locked filters against the blueprint (400 value types, 422 dataset, column and op) with a passing control", async () => {
    expectError(
      await mint({ filters: [{ dataset: "orders", column: "amount", op: "gt", value: "lots" }] }),
      400,
      "validation_error",
      "filters.0.value",
    );
    expectError(await mint({ filters: [{ dataset: "orders", column: "amount", op: "in" }] }), 400, "validation_error", "filters.0.values");
    expectError(
      await mint({ filters: [{ dataset: "nope", column: "amount", op: "gt", value: 1 }] }),
      422,
      "unknown_dataset",
      "filters.0.dataset",
    );
    expectError(
      await mint({
        filters: [
          { dataset: "orders", column: "region", op: "eq", value: "EU" },
          { dataset: "orders", column: "nope", op: "eq", value: "x" },
        ],
      }),
      422,
      "unknown_column",
      "filters.1.column",
    );
    expectError(
      await mint({ filters: [{ dataset: "orders", column: "amount", op: "contains", value: "1" }] }),
      422,
      "filter_not_allowed",
      "filters.0.op",
    );
    expect((await mint({ filters: [{ dataset: "orders", column: "amount", op: "gt", value: 1 }] })).status).toBe(200);
  });
});

describe("the builder's JSON API", () => {
  it("lists the blueprint's datasets in order with their columns (defaults filled in)", async () => {
    const res = await builder("GET", "/datasets", await builderToken());
    expect(res.status).toBe(200);
    expect(res.body.datasets.map((d: { name: string }) => d.name)).toEqual(["orders", "everything"]);
    expect(res.body.datasets[0]).toEqual({
      name: "orders",
      description: "Every order",
      columns: columns.map((c) => ({ name: c.name, display_name: c.display_name, type: c.type, can_be_grouped: c.can_be_grouped ?? true })),
    });
    expect(res.body.datasets[1].columns).toEqual([{ name: "amount", display_name: "amount", type: "FLOAT", can_be_grouped: true }]);
  });

  it("runs a query on this customer's rows only, in one D1 round trip for the service and one for the data", async () => {
    const token = await builderToken();
    // What the service reads, read from D1 (not kept at the location: test/report-builder/viewer-cache.test.ts).
    const res = await callWithEnv({ VIEWER_CACHE_SECONDS: "0" }, "POST", `/report-builder/${ctx.embedId}/query`, {
      body: { ...byProduct, sort: [{ column: "sum_amount", direction: "desc" }] },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: 1,
      columns: [
        { name: "product", display_name: "Product", type: "STRING" },
        { name: "sum_amount", display_name: "Sum of Amount", type: "FLOAT" },
      ],
      rows: [
        { product: "Storage", sum_amount: 250 },
        { product: "Seats", sum_amount: 100 },
        { product: '=HYPERLINK("http://x")', sum_amount: -5 },
      ],
      row_count: 3,
      truncated: false,
    });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
    expect(res.headers.get("X-Data-Round-Trips")).toBe("1");
    const beta = await builder(
      "POST",
      "/query",
      await (async () => (await mint({ provided_id: ctx.beta, blueprint_id: ctx.betaBlueprint })).body.token)(),
      byProduct,
      ctx.betaEmbedId,
    );
    expect(beta.body.rows).toEqual([
      { product: "Seats", sum_amount: 7 },
      { product: "Support", sum_amount: 3 },
    ]);
  });

  it("answers every query error with its code and field, and runs the corrected query", async () => {
    const token = await builderToken();
    const cases: [unknown, number, string, string][] = [
      [
        {
          ...byProduct,
          filters: [
            { column: "product", op: "eq", value: "Seats" },
            { column: "amount", op: "gte", value: "100" },
          ],
        },
        400,
        "validation_error",
        "filters.1.value",
      ],
      [{ ...byProduct, columns: ["product"] }, 400, "validation_error", "columns"],
      [{ dataset: "orders" }, 400, "validation_error", "group_by"],
      [{ ...byProduct, limit: 10_001 }, 400, "validation_error", "limit"],
      [{ ...byProduct, values: [{ aggregate: "median", column: "amount" }] }, 400, "validation_error", "values.0.aggregate"],
      [{ ...byProduct, dataset: "order" }, 422, "unknown_dataset", "dataset"],
      [{ ...byProduct, group_by: [{ column: "produkt" }] }, 422, "unknown_column", "group_by.0.column"],
      [{ ...byProduct, sort: [{ column: "amount" }] }, 422, "unknown_column", "sort.0.column"],
      [{ ...byProduct, group_by: [{ column: "region" }] }, 422, "column_not_groupable", "group_by.0.column"],
      [{ ...byProduct, group_by: [{ column: "product", bucket: "month" }] }, 422, "bucket_not_allowed", "group_by.0.bucket"],
      [{ ...byProduct, values: [{ aggregate: "sum", column: "product" }] }, 422, "aggregate_not_allowed", "values.0.aggregate"],
      [{ ...byProduct, filters: [{ column: "amount", op: "contains", value: "1" }] }, 422, "filter_not_allowed", "filters.0.op"],
    ];
    for (const [query, status, code, field] of cases) expectError(await builder("POST", "/query", token, query), status, code, field);
    // The controls: each corrected.
    for (const query of [
      { ...byProduct, filters: [{ column: "amount", op: "gte", value: 100 }] },
      { dataset: "orders", columns: ["product"] },
      { ...byProduct, limit: 10_000 },
      { ...byProduct, sort: [{ column: "sum_amount" }] },
      { ...byProduct, group_by: [{ column: "day", bucket: "month" }] },
      { ...byProduct, values: [{ aggregate: "max", column: "product" }] },
      { ...byProduct, filters: [{ column: "region", op: "contains", value: "e" }] },
      { dataset: "orders", columns: ["region"], filters: [{ column: "region", op: "eq", value: "EU" }] },
    ]) {
      expect((await builder("POST", "/query", token, query)).status, JSON.stringify(query)).toBe(200);
    }
  });

  it("answers 422 dataset_data_unavailable without SQL or secrets when the customer has no data source for the dataset", async () => {
    const unmapped = unique("unmapped");
    await createCustomer(ctx.write, { provided_id: unmapped, name: "No mapping" });
    const blueprint = await blueprintFor(ctx.write, unmapped, ctx.schema);
    const token = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: unmapped, blueprint_id: blueprint.id } })
    ).body.token;
    const res = await builder("POST", "/query", token, byProduct, blueprint.embedId);
    expectError(res, 422, "dataset_data_unavailable", "dataset");
    expect(res.body.error.message).not.toMatch(/SELECT|customer_id|DEMO_DATA/);
    await call("POST", "/api/update_customer/", {
      token: ctx.write,
      body: { provided_id: unmapped, mapping: { [ctx.schema]: Number(ctx.demo) } },
    });
    expect((await builder("POST", "/query", token, byProduct, blueprint.embedId)).status).toBe(200);
  });

  it("never runs on a data source the customer's access group may not use: 422 dataset_data_unavailable, as without a mapping", async () => {
    const restricted = (await admin("POST", "/admin/data_sources/", { name: "Restricted", binding: "DEMO_DATA" })).body.data_source
      .id as number;
    const customer = unique("restricted");
    await createCustomer(ctx.write, { provided_id: customer, name: "Restricted", mapping: { [ctx.schema]: restricted } });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const token = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: customer, blueprint_id: blueprint.id } })
    ).body.token;
    const query = { dataset: "orders", values: [{ aggregate: "count" }] };
    expect((await builder("POST", "/query", token, query, blueprint.embedId)).status).toBe(200);
    const other = await workspace();
    expect((await admin("POST", "/admin/update_data_source/", { id: restricted, access_groups: [other.group] })).status).toBe(200);
    const refused = await builder("POST", "/query", token, query, blueprint.embedId);
    expectError(refused, 422, "dataset_data_unavailable", "dataset");
    expect(refused.body.error.message).toContain("no data source is set up");
  });

  it("treats hostile names as unknown columns and hostile values as data; the orders table is unchanged", async () => {
    const token = await builderToken();
    const count = () => bindings.DEMO_DATA.prepare("SELECT count(*) AS n FROM orders").first("n");
    const before = await count();
    const hostile = `product"; DROP TABLE orders; --`;
    expectError(
      await builder("POST", "/query", token, { dataset: "orders", group_by: [{ column: hostile }] }),
      422,
      "unknown_column",
      "group_by.0.column",
    );
    expectError(
      await builder("POST", "/query", token, { dataset: `orders"; DELETE FROM orders; --`, columns: ["amount"] }),
      422,
      "unknown_dataset",
      "dataset",
    );
    const value = await builder("POST", "/query", token, {
      dataset: "orders",
      columns: ["product"],
      filters: [{ column: "product", op: "eq", value: `x' OR '1'='1` }],
    });
    expect(value.body.rows).toEqual([]);
    expect(await count()).toBe(before);
  });

  it("counts requests per customer per minute (BUILDER_REQUESTS_PER_MINUTE): over it 429 with Retry-After", async () => {
    const customer = unique("limited");
    await createCustomer(ctx.write, { provided_id: customer, name: "Limited", mapping: { [ctx.schema]: Number(ctx.demo) } });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const token = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: customer, blueprint_id: blueprint.id } })
    ).body.token;
    const limited = (path: string) =>
      callWithEnv({ BUILDER_REQUESTS_PER_MINUTE: "3" }, "GET", `/report-builder/${blueprint.embedId}${path}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited("/datasets")).status);
    // A window boundary may fall inside the loop; then the next window starts afresh.
    if (statuses.every((s) => s === 200)) {
      const over = await limited("/reports");
      if (over.status === 429) {
        expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
        expect(over.body.error.code).toBe("rate_limited");
      } else {
        expect(new Date().getSeconds()).toBeLessThan(2);
      }
    }
    expect(statuses).toEqual([200, 200, 200]);
  });

  it("does not count a not-found answer, also when it is served again from the primary", async () => {
    const customer = unique("once");
    await createCustomer(ctx.write, { provided_id: customer, name: "Once", mapping: { [ctx.schema]: Number(ctx.demo) } });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const other = await blueprintFor(ctx.write, customer, ctx.schema);
    const mintFor = async (id: number) =>
      (await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: customer, blueprint_id: id } })).body
        .token as string;
    const [token, otherToken] = [await mintFor(blueprint.id), await mintFor(other.id)];
    const limited = (embedId: string, as: string) =>
      callWithEnv({ BUILDER_REQUESTS_PER_MINUTE: "3" }, "GET", `/report-builder/${embedId}/datasets`, {
        headers: { Authorization: `Bearer ${as}` },
      });
    // A blueprint gone (only a direct deletion can do that while its customer exists): a read's 404 is retried on the primary.
    await bindings.DB.prepare("DELETE FROM blueprints WHERE id = ?").bind(blueprint.id).run();
    for (let i = 0; i < 4; i++) {
      const missing = await limited(blueprint.embedId, token);
      expectError(missing, 404, "blueprint_not_found");
      expect(Number(missing.headers.get("X-D1-Round-Trips"))).toBe(2);
    }
    // None of them counted: the customer's other blueprint still has the whole budget (a window boundary may fall inside).
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited(other.embedId, otherToken)).status);
    expect(statuses).toEqual([200, 200, 200]);
  });
});

describe("builder tokens and isolation", () => {
  it("locked filters are added to every query on their dataset and cannot be widened", async () => {
    const token = await builderToken({ filters: [{ dataset: "orders", column: "product", op: "eq", value: "Seats" }] });
    const plain = await builder("POST", "/query", token, { dataset: "orders", columns: ["product", "amount"] });
    expect(plain.body.rows).toEqual([{ product: "Seats", amount: 100 }]);
    const widened = await builder("POST", "/query", token, {
      dataset: "orders",
      columns: ["product"],
      filters: [{ column: "product", op: "in", values: ["Seats", "Storage"] }],
    });
    expect(widened.body.rows).toEqual([{ product: "Seats" }]);
  });

  it("a lock whose dataset or column update_blueprint renamed fails closed: 401 invalid_embed_token on every call and the page", async () => {
    const customer = unique("locked");
    await createCustomer(ctx.write, { provided_id: customer, name: "Locked", mapping: { [ctx.schema]: Number(ctx.demo) } });
    for (const product of ["Seats", "Storage"])
      await bindings.DEMO_DATA.prepare("INSERT INTO orders VALUES (?, '2026-03-01', '2026-03', ?, 10, 'EU')").bind(customer, product).run();
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const mintFor = async (filters?: unknown[]) =>
      (
        await call("POST", "/api/generate_embed_token/", {
          token: ctx.write,
          body: { provided_id: customer, blueprint_id: blueprint.id, filters },
        })
      ).body.token as string;
    const locked = await mintFor([{ dataset: "orders", column: "product", op: "eq", value: "Seats" }]);
    const unlocked = await mintFor();
    const everything = { dataset: "orders", columns: ["product"] };
    const sales = { dataset: "sales", columns: ["product"] };
    // Before the rename the lock holds (control).
    const before = await builder("POST", "/query", locked, everything, blueprint.embedId);
    expect(before.status).toBe(200);
    expect(new Set(before.body.rows.map((r: { product: string }) => r.product))).toEqual(new Set(["Seats"]));

    const update = (tablesNow: unknown) =>
      call("POST", "/api/update_blueprint/", { token: ctx.write, body: { blueprint_id: blueprint.id, tables: tablesNow } });
    // The review's case: the dataset is renamed; the lock would match no query any more.
    expect((await update(tables(ctx.schema).map((t) => (t.table_name === "orders" ? { ...t, dataset_name: "sales" } : t)))).status).toBe(
      200,
    );
    const calls: [string, string, unknown?][] = [
      ["GET", "/datasets"],
      ["POST", "/query", sales],
      ["POST", "/export", { query: sales, format: "csv" }],
      ["GET", "/reports"],
      ["POST", "/reports", { name: "All", query: sales, chart: { type: "table" } }],
      ["POST", "/view", { query: sales, chart: { type: "table" } }],
    ];
    for (const [method, path, body] of calls) {
      const res = await builder(method, path, locked, body, blueprint.embedId);
      expectError(res, 401, "invalid_embed_token");
      expect(res.body.error.message).toContain("ask for a new link");
    }
    const page = await call("GET", `/report-builder/${blueprint.embedId}?token=${locked}`);
    expect(page.status).toBe(401);
    expect(page.body).toContain('data-status="401"');
    expect(page.body).not.toContain("Seats");
    // Control: a token without locks still runs on the renamed dataset, every product.
    const open = await builder("POST", "/query", unlocked, sales, blueprint.embedId);
    expect(open.status).toBe(200);
    expect(open.body.rows.length).toBeGreaterThan(1);

    // A renamed column fails closed the same way; renaming it back makes the link work again.
    const renamedColumn = columns.map((c) => (c.name === "product" ? { ...c, name: "item" } : c));
    expect((await update(tables(ctx.schema).map((t) => (t.table_name === "orders" ? { ...t, columns: renamedColumn } : t)))).status).toBe(
      200,
    );
    expectError(await builder("GET", "/datasets", locked, undefined, blueprint.embedId), 401, "invalid_embed_token");
    expect((await update(tables(ctx.schema))).status).toBe(200);
    const after = await builder("POST", "/query", locked, everything, blueprint.embedId);
    expect(new Set(after.body.rows.map((r: { product: string }) => r.product))).toEqual(new Set(["Seats"]));
  });

  it("refuses a dashboard's token on the builder API and a builder token on a dashboard (401)", async () => {
    const embedId = await dashboard({ panels: [kpi("n", ctx.schema, "SELECT count(*) AS value FROM orders")] });
    const dashboardToken = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: ctx.alpha, dashboard_embed_id: embedId } })
    ).body.token;
    expectError(await builder("GET", "/datasets", dashboardToken), 401, "invalid_embed_token");
    const builderTok = await builderToken();
    expect((await call("GET", `/embed/${embedId}?token=${builderTok}`)).status).toBe(401);
    expect((await call("GET", `/embed/${embedId}?token=${dashboardToken}`)).status).toBe(200);
    expect((await builder("GET", "/datasets", builderTok)).status).toBe(200);
  });

  it("refuses no token, an altered token and a token for another blueprint (401)", async () => {
    const token = await builderToken();
    expectError(await call("GET", `/report-builder/${ctx.embedId}/datasets`), 401, "invalid_embed_token");
    const [head, payload, signature] = token.split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const altered = `${head}.${btoa(JSON.stringify({ ...claims, cid: claims.cid + 1 }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_")}.${signature}`;
    expectError(await builder("GET", "/datasets", altered), 401, "invalid_embed_token");
    expectError(await builder("GET", "/datasets", token, undefined, ctx.betaEmbedId), 401, "invalid_embed_token");
  });

  it("revokes builder tokens when the customer token is refreshed or the customer deleted", async () => {
    const customer = unique("revoked");
    const created = await createCustomer(ctx.write, {
      provided_id: customer,
      name: "Revoked",
      mapping: { [ctx.schema]: Number(ctx.demo) },
    });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const mintFor = async () =>
      (await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: customer, blueprint_id: blueprint.id } }))
        .body.token as string;
    const first = await mintFor();
    expect((await builder("GET", "/datasets", first, undefined, blueprint.embedId)).status).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", {
      token: ctx.write,
      body: { provided_id: customer, current_token: created.token },
    });
    expect(refreshed.status).toBe(200);
    expectError(await builder("GET", "/datasets", first, undefined, blueprint.embedId), 401, "invalid_embed_token");
    const second = await mintFor();
    const saved = await builder(
      "POST",
      "/reports",
      second,
      { name: "Kept?", query: byProduct, chart: { type: "table" } },
      blueprint.embedId,
    );
    expect(saved.status).toBe(200);
    const deleted = await call("DELETE", "/api/delete_customer/", {
      token: ctx.write,
      body: { provided_id: customer, current_token: refreshed.body.token ?? refreshed.body.customer?.token },
    });
    expect(deleted.status).toBe(200);
    expectError(await builder("GET", "/datasets", second, undefined, blueprint.embedId), 401, "invalid_embed_token");
    // Its reports went with it.
    expect(await bindings.DB.prepare("SELECT count(*) AS n FROM saved_reports WHERE id = ?").bind(saved.body.report.id).first("n")).toBe(0);
  });
});

describe("saved reports", () => {
  it("saves, lists (newest change first), updates and deletes a report; created_by is the token's user_id", async () => {
    const token = await builderToken({ user_id: "user-42" });
    const first = await builder("POST", "/reports", token, {
      name: "By product",
      query: byProduct,
      chart: { type: "bar", x: "product", y: ["sum_amount"] },
    });
    expect(first.status).toBe(200);
    expect(first.body.report).toMatchObject({
      blueprint_id: ctx.blueprint,
      name: "By product",
      query: byProduct,
      chart: { type: "bar", x: "product", y: ["sum_amount"] },
      created_by: "user-42",
    });
    expect(typeof first.body.report.id).toBe("string");
    const second = await builder("POST", "/reports", token, {
      name: "Count",
      query: { dataset: "orders", values: [{ aggregate: "count" }] },
      chart: { type: "kpi" },
    });
    let list = await builder("GET", "/reports", token);
    expect(list.body.reports.map((r: { id: string }) => r.id).slice(0, 2)).toEqual([second.body.report.id, first.body.report.id]);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await builder("POST", `/reports/${first.body.report.id}`, token, { name: "Revenue by product" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.report).toMatchObject({ name: "Revenue by product", query: byProduct, created_at: first.body.report.created_at });
    expect(renamed.body.report.updated_at > first.body.report.updated_at).toBe(true);
    list = await builder("GET", "/reports", token);
    expect(list.body.reports[0].id).toBe(first.body.report.id);

    expect((await builder("DELETE", `/reports/${first.body.report.id}`, token)).body).toMatchObject({ success: 1 });
    expectError(await builder("DELETE", `/reports/${first.body.report.id}`, token), 404, "report_not_found");
    expectError(await builder("POST", `/reports/${first.body.report.id}`, token, { name: "x" }), 404, "report_not_found");
  });

  it("refuses a report that would not run (422 under query.) or whose chart names no result column, with a passing control", async () => {
    const token = await builderToken();
    expectError(
      await builder("POST", "/reports", token, {
        name: "x",
        query: { ...byProduct, group_by: [{ column: "nope" }] },
        chart: { type: "table" },
      }),
      422,
      "unknown_column",
      "query.group_by.0.column",
    );
    expectError(
      await builder("POST", "/reports", token, { name: "x", query: byProduct, chart: { type: "bar", x: "product", y: ["amount"] } }),
      422,
      "unknown_column",
      "chart.y.0",
    );
    expectError(
      await builder("POST", "/reports", token, { name: "", query: byProduct, chart: { type: "bar" } }),
      400,
      "validation_error",
      "name",
    );
    expectError(
      await builder("POST", "/reports", token, { name: "x", query: byProduct, chart: { type: "donut" } }),
      400,
      "validation_error",
      "chart.type",
    );
    expect(
      (await builder("POST", "/reports", token, { name: "x", query: byProduct, chart: { type: "bar", x: "product", y: ["sum_amount"] } }))
        .status,
    ).toBe(200);
  });

  it("with can_save: false the token lists and runs, but saving, changing and deleting answer 403 saving_not_allowed", async () => {
    const saved = (await builder("POST", "/reports", await builderToken(), { name: "Mine", query: byProduct, chart: { type: "table" } }))
      .body.report;
    const viewer = await builderToken({ can_save: false });
    expect((await builder("GET", "/reports", viewer)).status).toBe(200);
    expect((await builder("POST", "/query", viewer, saved.query)).status).toBe(200);
    expectError(
      await builder("POST", "/reports", viewer, { name: "x", query: byProduct, chart: { type: "table" } }),
      403,
      "saving_not_allowed",
    );
    expectError(await builder("POST", `/reports/${saved.id}`, viewer, { name: "y" }), 403, "saving_not_allowed");
    expectError(await builder("DELETE", `/reports/${saved.id}`, viewer), 403, "saving_not_allowed");
  });

  it("another customer's report is 404 report_not_found through the builder", async () => {
    const betaToken = (await mint({ provided_id: ctx.beta, blueprint_id: ctx.betaBlueprint })).body.token;
    const theirs = (
      await builder("POST", "/reports", betaToken, { name: "Beta's", query: byProduct, chart: { type: "table" } }, ctx.betaEmbedId)
    ).body.report;
    const mine = await builderToken();
    expectError(await builder("POST", `/reports/${theirs.id}`, mine, { name: "stolen" }), 404, "report_not_found");
    expectError(await builder("DELETE", `/reports/${theirs.id}`, mine), 404, "report_not_found");
    expect((await builder("GET", "/reports", mine)).body.reports.map((r: { id: string }) => r.id)).not.toContain(theirs.id);
    expect(
      (await builder("GET", "/reports", betaToken, undefined, ctx.betaEmbedId)).body.reports.map(
        (r: { id: string; name: string }) => r.name,
      ),
    ).toContain("Beta's");
  });

  it("a report broken by update_blueprint answers the 422 of its first missing name when run", async () => {
    const customer = unique("changing");
    await createCustomer(ctx.write, { provided_id: customer, name: "Changing", mapping: { [ctx.schema]: Number(ctx.demo) } });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const token = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: customer, blueprint_id: blueprint.id } })
    ).body.token;
    const query = {
      dataset: "orders",
      group_by: [{ column: "month" }, { column: "product" }],
      values: [{ aggregate: "sum", column: "amount" }],
    };
    const saved = (await builder("POST", "/reports", token, { name: "Monthly", query, chart: { type: "table" } }, blueprint.embedId)).body
      .report;
    const without = tables(ctx.schema).map((t) =>
      t.table_name === "orders" ? { ...t, columns: columns.filter((c) => c.name !== "product" && c.name !== "month") } : t,
    );
    expect(
      (await call("POST", "/api/update_blueprint/", { token: ctx.write, body: { blueprint_id: blueprint.id, tables: without } })).status,
    ).toBe(200);
    expectError(await builder("POST", "/query", token, saved.query, blueprint.embedId), 422, "unknown_column", "group_by.0.column");
    const renamed = tables(ctx.schema).map((t) => (t.table_name === "orders" ? { ...t, dataset_name: "sales" } : t));
    await call("POST", "/api/update_blueprint/", { token: ctx.write, body: { blueprint_id: blueprint.id, tables: renamed } });
    expectError(await builder("POST", "/query", token, saved.query, blueprint.embedId), 422, "unknown_dataset", "dataset");
  });
});

describe("saved reports outside the builder (deliveries)", () => {
  it("runSavedReport runs a report for its own customer, and answers report_not_found for any other customer", async () => {
    const saved = (
      await builder("POST", "/reports", await builderToken(), { name: "For delivery", query: byProduct, chart: { type: "bar" } })
    ).body.report;
    const idOf = (providedId: string) =>
      bindings.DB.prepare("SELECT id FROM customers WHERE provided_id = ?").bind(providedId).first<number>("id");
    const db = createDatabase(bindings.DB);
    const ran = await runSavedReport(db, env as never, { reportId: saved.id, customerId: (await idOf(ctx.alpha))! });
    expect(ran.report).toEqual(saved);
    expect(ran.customerName).toBe("Alpha");
    expect(ran.result.rows).toEqual(
      expect.arrayContaining([
        { product: "Seats", sum_amount: 100 },
        { product: "Storage", sum_amount: 250 },
      ]),
    );
    await expect(runSavedReport(db, env as never, { reportId: saved.id, customerId: (await idOf(ctx.beta))! })).rejects.toMatchObject({
      code: "report_not_found",
    });
  });
});

describe("saved reports keep the locks they were saved under, and an owner", () => {
  const seats = { dataset: "orders", column: "product", op: "eq", value: "Seats" };
  const idOf = (providedId: string) =>
    bindings.DB.prepare("SELECT id FROM customers WHERE provided_id = ?").bind(providedId).first<number>("id");

  it("stores the saving token's locked filters (answered as locked_filters, [] when none) and applies them to every delivery run", async () => {
    const locked = await builderToken({ user_id: "locked-user", filters: [seats] });
    const saved = (await builder("POST", "/reports", locked, { name: "Locked", query: byProduct, chart: { type: "table" } })).body.report;
    expect(saved.locked_filters).toEqual([seats]);
    const plain = (await builder("POST", "/reports", await builderToken(), { name: "Open", query: byProduct, chart: { type: "table" } }))
      .body.report;
    expect(plain.locked_filters).toEqual([]);
    // Seen by another user of the customer and by the vendor, with its locks.
    const listed = (await builder("GET", "/reports", await builderToken({ user_id: "someone-else" }))).body.reports;
    expect(listed.find((r: { id: string }) => r.id === saved.id).locked_filters).toEqual([seats]);
    const vendor = await call("POST", "/api/get_customer_reports/", { token: ctx.read, body: { customer_id: ctx.alpha } });
    expect(vendor.body.reports.find((r: { id: string }) => r.id === saved.id).locked_filters).toEqual([seats]);

    // The review's case: delivered (screenshot, e-mail, CSV/XLSX, schedules, share links all run it this way), only the locked rows.
    const db = createDatabase(bindings.DB);
    const alphaId = (await idOf(ctx.alpha))!;
    const ran = await runSavedReport(db, env as never, { reportId: saved.id, customerId: alphaId });
    expect(ran.result.rows).toEqual([{ product: "Seats", sum_amount: 100 }]);
    // Control: the report saved without locks delivers every product.
    const open = await runSavedReport(db, env as never, { reportId: plain.id, customerId: alphaId });
    expect(open.result.rows.map((r: Record<string, unknown>) => r.product)).toEqual(expect.arrayContaining(["Seats", "Storage"]));
  });

  it("in the builder, a saved report opened by another user runs with its stored locks added to the viewer's own (report_id on /view and /export)", async () => {
    const saver = await builderToken({ user_id: "saver", filters: [seats] });
    const saved = (await builder("POST", "/reports", saver, { name: "Seats", query: byProduct, chart: { type: "table" } })).body.report;
    const viewer = await builderToken({ user_id: "viewer" });
    const products = (res: ApiResponse) => res.body.rows.map((r: { product: string }) => r.product).sort();
    // The review's case: opened by an unlocked user, the report still shows only what it was saved under.
    const opened = await builder("POST", "/view", viewer, { query: byProduct, chart: { type: "table" }, report_id: saved.id });
    expect(opened.status).toBe(200);
    expect(products(opened)).toEqual(["Seats"]);
    const file = await builder("POST", "/export", viewer, { query: byProduct, format: "csv", report_id: saved.id });
    expect(file.status).toBe(200);
    expect(String(file.body)).toContain("Seats");
    expect(String(file.body)).not.toContain("Storage");
    // Together with the viewer's own locks: a viewer locked to Storage sees nothing of a Seats report.
    const storage = await builderToken({ filters: [{ ...seats, value: "Storage" }] });
    const both = await builder("POST", "/view", storage, { query: byProduct, chart: { type: "table" }, report_id: saved.id });
    expect(both.body.rows).toEqual([]);
    // Controls: the same query without the report is the viewer's own view; another blueprint's or unknown report is 404.
    expect(products(await builder("POST", "/view", viewer, { query: byProduct, chart: { type: "table" } }))).toEqual(
      expect.arrayContaining(["Seats", "Storage"]),
    );
    expectError(
      await builder("POST", "/view", viewer, { query: byProduct, chart: { type: "table" }, report_id: "nope" }),
      404,
      "report_not_found",
      "report_id",
    );
  });

  it("only the same user with the same locked filters may change or delete it: 403 report_read_only, nothing changes", async () => {
    const owner = await builderToken({ user_id: "owner", filters: [seats] });
    const saved = (await builder("POST", "/reports", owner, { name: "Mine", query: byProduct, chart: { type: "table" } })).body.report;
    const strangers = [
      await builderToken({ user_id: "intruder", filters: [seats] }),
      await builderToken({ user_id: "owner" }),
      await builderToken({ user_id: "owner", filters: [{ ...seats, value: "Storage" }] }),
      await builderToken({ filters: [seats] }),
      await builderToken({}),
    ];
    for (const token of strangers) {
      expectError(await builder("POST", `/reports/${saved.id}`, token, { name: "Taken over" }), 403, "report_read_only");
      expectError(await builder("DELETE", `/reports/${saved.id}`, token), 403, "report_read_only");
    }
    const stored = await bindings.DB.prepare("SELECT name, updated_at FROM saved_reports WHERE id = ?").bind(saved.id).first();
    expect(stored).toEqual({ name: "Mine", updated_at: saved.updated_at });
    // Controls: the owner (a fresh token of the same user and locks, in another order of keys) changes and deletes it.
    const again = await builderToken({ filters: [{ value: "Seats", op: "eq", column: "product", dataset: "orders" }], user_id: "owner" });
    const renamed = await builder("POST", `/reports/${saved.id}`, again, { name: "Still mine" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.report).toMatchObject({ name: "Still mine", locked_filters: [seats], created_by: "owner" });
    expect((await builder("DELETE", `/reports/${saved.id}`, again)).status).toBe(200);
    // Both without user_id and locks count as the same owner.
    const anonymous = (
      await builder("POST", "/reports", await builderToken(), { name: "Anon", query: byProduct, chart: { type: "table" } })
    ).body.report;
    expect((await builder("POST", `/reports/${anonymous.id}`, await builderToken(), { name: "Anon 2" })).status).toBe(200);
  });

  it("a stored lock that no longer fits the blueprint refuses the delivery run instead of dropping the lock", async () => {
    const customer = unique("stale");
    await createCustomer(ctx.write, { provided_id: customer, name: "Stale", mapping: { [ctx.schema]: Number(ctx.demo) } });
    const blueprint = await blueprintFor(ctx.write, customer, ctx.schema);
    const token = (
      await call("POST", "/api/generate_embed_token/", {
        token: ctx.write,
        body: {
          provided_id: customer,
          blueprint_id: blueprint.id,
          filters: [{ dataset: "everything", column: "amount", op: "gt", value: 0 }],
        },
      })
    ).body.token;
    const query = { dataset: "orders", values: [{ aggregate: "sum", column: "amount" }] };
    const saved = (await builder("POST", "/reports", token, { name: "Total", query, chart: { type: "kpi" } }, blueprint.embedId)).body
      .report;
    const db = createDatabase(bindings.DB);
    const customerId = (await idOf(customer))!;
    expect((await runSavedReport(db, env as never, { reportId: saved.id, customerId })).result.rows).toHaveLength(1);
    const renamed = tables(ctx.schema).map((t) => (t.table_name === "all_orders" ? { ...t, dataset_name: "all" } : t));
    expect(
      (await call("POST", "/api/update_blueprint/", { token: ctx.write, body: { blueprint_id: blueprint.id, tables: renamed } })).status,
    ).toBe(200);
    await expect(runSavedReport(db, env as never, { reportId: saved.id, customerId })).rejects.toMatchObject({
      code: "dataset_data_unavailable",
    });
  });
});

describe("the vendor's operations on saved reports", () => {
  it("get_customer_reports (read) answers every report of the customer's blueprints; delete_customer_report needs write", async () => {
    const token = await builderToken();
    const saved = (await builder("POST", "/reports", token, { name: "For the vendor", query: byProduct, chart: { type: "table" } })).body
      .report;
    const list = await call("POST", "/api/get_customer_reports/", { token: ctx.read, body: { customer_id: ctx.alpha } });
    expect(list.status).toBe(200);
    expect(list.body.reports.find((r: { id: string }) => r.id === saved.id)).toEqual(saved);
    expect(list.body.reports.every((r: { blueprint_id: number }) => r.blueprint_id === ctx.blueprint)).toBe(true);
    expectError(
      await call("POST", "/api/get_customer_reports/", { token: ctx.read, body: { customer_id: "nobody" } }),
      404,
      "customer_not_found",
      "customer_id",
    );

    expectError(
      await call("POST", "/api/delete_customer_report/", { token: ctx.read, body: { report_id: saved.id } }),
      403,
      "read_only_token",
    );
    const other = await workspace();
    expectError(
      await call("POST", "/api/delete_customer_report/", { token: other.write, body: { report_id: saved.id } }),
      404,
      "report_not_found",
      "report_id",
    );
    expectError(
      await call("POST", "/api/get_customer_reports/", { token: other.read, body: { customer_id: ctx.alpha } }),
      404,
      "customer_not_found",
      "customer_id",
    );
    expect((await call("POST", "/api/delete_customer_report/", { token: ctx.write, body: { report_id: saved.id } })).body).toEqual({
      success: 1,
    });
    expectError(await builder("POST", `/reports/${saved.id}`, token, { name: "gone" }), 404, "report_not_found");
  });
});

describe("exports", () => {
  it("exports CSV: header of result names, rows, numbers as numbers, formula-like text prefixed with '", async () => {
    const res = await call("POST", `/report-builder/${ctx.embedId}/export`, {
      body: { query: { ...byProduct, sort: [{ column: "product" }] }, format: "csv", file_name: "Sales / Q1" },
      headers: { Authorization: `Bearer ${await builderToken()}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="Sales _ Q1.csv"');
    expect(Papa.parse(res.body as string, { skipEmptyLines: true }).data).toEqual([
      ["product", "sum_amount"],
      ['\'=HYPERLINK("http://x")', "-5"],
      ["Seats", "100"],
      ["Storage", "250"],
    ]);
  });

  it("exports XLSX with typed cells under display names", async () => {
    const request = new Request(`http://api.test/report-builder/${ctx.embedId}/export`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await builderToken()}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        query: { dataset: "orders", columns: ["day", "product", "amount"], sort: [{ column: "day" }] },
        format: "xlsx",
      }),
    });
    const { exports } = await import("cloudflare:workers");
    const response = await (exports as any).default.fetch(request);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Disposition")).toBe('attachment; filename="report.xlsx"');
    const [sheet] = await readXlsxFile(new Blob([await response.arrayBuffer()]));
    expect(sheet.data[0]).toEqual(["Day", "Product", "Amount"]);
    const rows = sheet.data.slice(1) as unknown[][];
    expect(rows.map((r) => [(r[0] as Date).toISOString().slice(0, 10), r[1], r[2]])).toEqual([
      ["2026-01-05", "Seats", 100],
      ["2026-02-05", "Storage", 250],
      ["2026-02-09", '=HYPERLINK("http://x")', -5],
    ]);
  });
});

describe("the benchmark's development routes", () => {
  it("compile a query and run the statement straight through the binding in development, and do not exist in production", async () => {
    const token = await builderToken();
    const compiled = await call("POST", `/_dev/report-sql/${ctx.embedId}`, {
      body: byProduct,
      admin: true,
      headers: { "X-Builder-Token": token },
    });
    expect(compiled.status).toBe(200);
    // The admin token is what opens them: the builder token alone (as the Authorization) does not.
    const asBuilder = await call("POST", `/_dev/report-sql/${ctx.embedId}`, {
      body: byProduct,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(asBuilder.status).toBe(401);
    expect(asBuilder.body.error.code).toBe("invalid_admin_token");
    expect(compiled.body).toMatchObject({ binding: "DEMO_DATA", kind: "d1", params: ["alpha", 1001] });
    const floor = await call("POST", "/_dev/floor/report-sql", {
      admin: true,
      body: { binding: compiled.body.binding, kind: "d1", sql: compiled.body.sql, params: compiled.body.params },
    });
    expect(floor.body.rows).toHaveLength(3);
    // Only reads, and never the service's own database.
    expect(
      (
        await call("POST", "/_dev/floor/report-sql", {
          admin: true,
          body: { binding: "DEMO_DATA", kind: "d1", sql: "DELETE FROM orders", params: [] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call("POST", "/_dev/floor/report-sql", {
          admin: true,
          body: { binding: "DB", kind: "d1", sql: "SELECT * FROM api_tokens", params: [] },
        })
      ).status,
    ).toBe(400);
    const production = { ENVIRONMENT: "production" };
    expect(
      (
        await callWithEnv(production, "POST", "/_dev/floor/report-sql", {
          body: { binding: "DEMO_DATA", kind: "d1", sql: "SELECT 1", params: [] },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await callWithEnv(production, "POST", `/_dev/report-sql/${ctx.embedId}`, {
          body: byProduct,
          admin: true,
          headers: { "X-Builder-Token": token },
        })
      ).status,
    ).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents the builder API and the vendor operations", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const path of [
      "/report-builder/{embedId}/datasets",
      "/report-builder/{embedId}/query",
      "/report-builder/{embedId}/export",
      "/report-builder/{embedId}/reports",
      "/report-builder/{embedId}/reports/{reportId}",
      "/api/get_customer_reports/",
      "/api/delete_customer_report/",
    ]) {
      expect(doc.paths[path], path).toBeTruthy();
    }
    expect(doc.components.securitySchemes.BuilderToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/report-builder/{embedId}/query"].post.responses["422"]).toBeTruthy();
  });
});
