import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, dashboard, kpi, unique, workspace } from "../helpers/dashboards";

// Section 21's rules on the SQL vendors write, through the API: it is checked in linear time
// (the review's 43-character query took 8.8 s to save), and it carries no bind parameters of
// its own (a `?` or `$2` would take the slot of a {{…}} placeholder's value).

let ctx: { write: string; schema: number; customer: string };

beforeAll(async () => {
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("vendor-sql") })).body.schema.id as number;
  const customer = unique("vendor-sql");
  await createCustomer(write, { provided_id: customer });
  ctx = { write, schema, customer };
});

const table = (query: string) => ({ table_name: "orders", schema_id: ctx.schema, query, columns: [{ name: "id", type: "INTEGER" }] });
const createBlueprint = (query: string) =>
  call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: ctx.customer, blueprint_name: "Vendor SQL", tables: [table(query)] },
  });
const saveVersion = (embedId: string, sql: string) =>
  admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: { panels: [kpi("k", ctx.schema, sql)] } });

/** The review's query: a string, a line break, 30 blanks, a word (`SELECT 'a' x`, a valid read). */
const REVIEW_QUERY = `SELECT 'a'\n${" ".repeat(30)}x`;

describe("vendor SQL is checked in linear time", () => {
  it("saves the review's query as a blueprint query and as panel SQL in well under a second (it took 8.8 s)", async () => {
    let started = performance.now();
    const blueprint = await createBlueprint(REVIEW_QUERY);
    expect(blueprint.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);

    const embedId = await dashboard({ panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] });
    started = performance.now();
    expect((await saveVersion(embedId, REVIEW_QUERY)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("refuses the longest blueprint query of blanks after a string quickly, as not read-only when it is not (control)", async () => {
    const started = performance.now();
    const refused = await createBlueprint(`SELECT 'a'\n${" ".repeat(99_000)}; DELETE FROM orders`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "query_not_read_only", field: "tables.0.query" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

const ADVICE = "use placeholders such as {{customer.provided_id}}";

const PARAMETERS: [string, string][] = [
  ["?", "SELECT count(*) AS value FROM orders WHERE customer_id = ?"],
  ["?NNN", "SELECT count(*) AS value FROM orders WHERE customer_id = ?1"],
  ["$n", "SELECT count(*) AS value FROM orders WHERE customer_id = $2"],
  [":name", "SELECT count(*) AS value FROM orders WHERE customer_id = :customer"],
  ["@name", "SELECT count(*) AS value FROM orders WHERE customer_id = @customer"],
  [":name in PostgreSQL-only SQL (after a ::cast)", "SELECT count(*)::int AS value FROM orders WHERE customer_id = :customer"],
];

/** Bind-parameter look-alikes that are not: in strings, comments, quoted names, casts, and our placeholders. */
const CONTROLS: [string, string][] = [
  ["a placeholder", "SELECT count(*) AS value FROM orders WHERE customer_id = {{customer.provided_id}}"],
  ["'?' in a string, a parameter in a comment", "SELECT '? $1 :a @b' AS value -- WHERE id = ?\n"],
  ["quoted names", 'SELECT 1 AS "value?", 2 AS ":a"'],
  ["PostgreSQL casts", "SELECT {{customer.provided_id}}::text AS value, 1::numeric(10, 2) AS n"],
];

describe("vendor SQL has no bind parameters of its own", () => {
  it.each(PARAMETERS)("refuses %s in panel SQL: 400 validation_error on the field, nothing saved", async (_name, sql) => {
    const embedId = await dashboard({ panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] });
    const refused = await saveVersion(embedId, sql);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "definition.panels.0.sql" });
    expect(refused.body.error.message).toContain(ADVICE);
    const newest = await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`);
    expect(newest.body.version.version_number).toBe(1);
  });

  it.each(PARAMETERS)("refuses %s in a blueprint query: 400 validation_error on the field", async (_name, sql) => {
    const refused = await createBlueprint(sql);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "tables.0.query" });
    expect(refused.body.error.message).toContain(ADVICE);
  });

  it.each(CONTROLS)("saves %s as panel SQL and as a blueprint query (control)", async (_name, sql) => {
    const embedId = await dashboard({ panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] });
    expect((await saveVersion(embedId, sql)).status).toBe(200);
    expect((await createBlueprint(sql)).status).toBe(200);
  });
});
