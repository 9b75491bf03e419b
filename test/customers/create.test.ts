import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, createTag, getCustomer, roundTrips, schemaAndSource, unique, workspace } from "../helpers/api";

const create = (token: string, body: unknown) => call("POST", "/api/create_customer/", { token, body });

describe("POST /api/create_customer/ (get or create)", () => {
  it("creates a customer with every field and answers new_customer: true", async () => {
    const { write, group } = await workspace();
    const { schemaId, dataSourceId } = await schemaAndSource();
    await createTag(write, "VIP");
    const res = await create(write, {
      provided_id: "acme-full",
      name: "Acme",
      mapping: { [schemaId]: dataSourceId },
      is_demo_group: true,
      emails: ["a@acme.example", "b@acme.example", "A@ACME.example"],
      group_tags: ["vip"],
      properties: { plan: "gold", nested: { a: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(1);
    expect(res.body.new_customer).toBe(true);
    const customer = res.body.customer;
    expect(customer).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      name: "Acme",
      provided_id: "acme-full",
      emails: ["a@acme.example", "b@acme.example"],
      group_tags: ["VIP"],
      hierarchy_level: "Customer",
      access_group: group,
      is_demo_group: true,
      properties: { plan: "gold", nested: { a: 1 } },
      computed_properties: { plan: "gold", nested: { a: 1 } },
      parent_schema_datasource_mapping: { [String(schemaId)]: String(dataSourceId) },
      computed_parent_schema_datasource_mapping: { [String(schemaId)]: String(dataSourceId) },
      theme: null,
      locale: null,
      timezone: null,
      computed_theme: null,
      computed_locale: "en-US",
      computed_timezone: "UTC",
    });
    expect(Object.keys(customer)).toEqual([
      "token",
      "name",
      "provided_id",
      "emails",
      "group_tags",
      "hierarchy_level",
      "access_group",
      "is_demo_group",
      "properties",
      "computed_properties",
      "parent_schema_datasource_mapping",
      "computed_parent_schema_datasource_mapping",
      "theme",
      "locale",
      "timezone",
      "computed_theme",
      "computed_locale",
      "computed_timezone",
    ]);
  });

  it("defaults: name = provided_id, root level, not demo, null own fields, empty computed ones", async () => {
    const { write } = await workspace();
    const res = await create(write, { provided_id: "minimal" });
    expect(res.body.customer).toMatchObject({
      name: "minimal",
      hierarchy_level: "Customer",
      is_demo_group: false,
      emails: [],
      group_tags: [],
      properties: null,
      computed_properties: {},
      parent_schema_datasource_mapping: null,
      computed_parent_schema_datasource_mapping: {},
    });
  });

  it("returns an existing customer unchanged with new_customer: false, ignoring the other fields", async () => {
    const { write } = await workspace();
    const first = await createCustomer(write, { provided_id: "existing", name: "First", properties: { a: 1 } });
    const again = await create(write, {
      provided_id: "existing",
      name: "Second",
      properties: { a: 2 },
      group_tags: ["no-such-tag"],
      hierarchy_level_name: "No such level",
    });
    expect(again.status).toBe(200);
    expect(again.body.new_customer).toBe(false);
    expect(again.body.customer).toEqual(first);
  });

  it("still validates the shape of fields for an existing customer (400)", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "existing-shape" });
    const res = await create(write, { provided_id: "existing-shape", emails: "not-a-list" });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("emails");
  });

  it("accepts a data source by its provided_id or numeric id as a digit string", async () => {
    const { write } = await workspace();
    const { schemaId, dataSourceId, dataSourceProvidedId } = await schemaAndSource();
    const byProvided = await createCustomer(write, { provided_id: "map-provided", mapping: { [schemaId]: dataSourceProvidedId } });
    expect(byProvided.parent_schema_datasource_mapping).toEqual({ [String(schemaId)]: String(dataSourceId) });
    const byDigits = await createCustomer(write, { provided_id: "map-digits", mapping: { [schemaId]: String(dataSourceId) } });
    expect(byDigits.parent_schema_datasource_mapping).toEqual({ [String(schemaId)]: String(dataSourceId) });
  });

  it("reads a digit string that names no data source id as a provided_id", async () => {
    const { write } = await workspace();
    const schema = (await admin("POST", "/admin/schemas/", { name: "digits" })).body.schema.id;
    const source = await admin("POST", "/admin/data_sources/", { name: "Digits", binding: "DEMO_DATA", provided_id: "424242" });
    const customer = await createCustomer(write, { provided_id: "map-digit-provided", mapping: { [schema]: "424242" } });
    expect(customer.parent_schema_datasource_mapping).toEqual({ [String(schema)]: String(source.body.data_source.id) });
  });

  it("places a child below its parent with an explicit level", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "parent-1" });
    const child = await createCustomer(write, { provided_id: "child-1", parent_provided_id: "parent-1", hierarchy_level_name: "User" });
    expect(child.hierarchy_level).toBe("User");
  });

  it("costs at most two D1 round trips (one when the customer exists)", async () => {
    const { write } = await workspace();
    await createTag(write, "rt");
    await createCustomer(write, { provided_id: "rt-parent" });
    const created = await create(write, {
      provided_id: "rt-child",
      parent_provided_id: "rt-parent",
      hierarchy_level_name: "User",
      group_tags: ["rt"],
    });
    expect(created.body.new_customer).toBe(true);
    expect(roundTrips(created)).toBe(2);
    const existing = await create(write, { provided_id: "rt-child" });
    expect(roundTrips(existing)).toBe(1);
  });

  it("creates exactly one customer when many parallel calls use one provided_id; all answers agree", async () => {
    const { write } = await workspace();
    const results = await Promise.all(Array.from({ length: 20 }, () => create(write, { provided_id: "racy", name: "Racy" })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const tokens = new Set(results.map((r) => r.body.customer.token));
    expect(tokens.size).toBe(1);
    expect(results.filter((r) => r.body.new_customer === true)).toHaveLength(1);
    const list = await call("GET", "/api/customers/", { token: write });
    expect(list.body.customers.filter((c: { provided_id: string }) => c.provided_id === "racy")).toHaveLength(1);
  });

  it("stores customer tokens only as a hash (no plain token in D1)", async () => {
    const { env } = await import("cloudflare:test");
    const { write } = await workspace();
    const customer = await createCustomer(write, { provided_id: "hashed-token" });
    const db = (env as unknown as { DB: D1Database }).DB;
    const row = await db.prepare("SELECT * FROM customers WHERE provided_id = 'hashed-token'").first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(customer.token);
  });
});

describe("create_customer errors change nothing", () => {
  const cases: [string, (ctx: { parent: string }) => unknown, number, string, string | undefined][] = [
    ["a missing provided_id", () => ({ name: "x" }), 400, "validation_error", "provided_id"],
    ["an empty provided_id", () => ({ provided_id: "" }), 400, "validation_error", "provided_id"],
    ["a provided_id over 256 characters", () => ({ provided_id: "x".repeat(257) }), 400, "validation_error", "provided_id"],
    ["a provided_id with a control character", () => ({ provided_id: "a\nb" }), 400, "validation_error", "provided_id"],
    ["an empty name", () => ({ provided_id: "bad-1", name: "" }), 400, "validation_error", "name"],
    ["a name of the wrong type", () => ({ provided_id: "bad-1", name: 5 }), 400, "validation_error", "name"],
    ["an invalid e-mail", () => ({ provided_id: "bad-1", emails: ["ok@x.example", "nope"] }), 400, "validation_error", "emails.1"],
    ["properties that are not an object", () => ({ provided_id: "bad-1", properties: [1] }), 400, "validation_error", "properties"],
    [
      "properties over 64 KiB",
      () => ({ provided_id: "bad-1", properties: { big: "x".repeat(70_000) } }),
      400,
      "validation_error",
      "properties",
    ],
    [
      "a mapping key that is not a schema id",
      () => ({ provided_id: "bad-1", mapping: { sales: 1 } }),
      400,
      "validation_error",
      "mapping.sales",
    ],
    ["is_demo_group of the wrong type", () => ({ provided_id: "bad-1", is_demo_group: "yes" }), 400, "validation_error", "is_demo_group"],
    [
      "a parent that does not exist",
      () => ({ provided_id: "bad-1", parent_provided_id: "ghost", hierarchy_level_name: "User" }),
      404,
      "parent_not_found",
      "parent_provided_id",
    ],
    [
      "a group tag that does not exist",
      () => ({ provided_id: "bad-1", group_tags: ["ghost-tag"] }),
      422,
      "unknown_group_tag",
      "group_tags.0",
    ],
    [
      "a hierarchy level that does not exist",
      () => ({ provided_id: "bad-1", hierarchy_level_name: "Galaxy" }),
      422,
      "unknown_hierarchy_level",
      "hierarchy_level_name",
    ],
    [
      "a parent without a level below it (root by default)",
      ({ parent }) => ({ provided_id: "bad-1", parent_provided_id: parent }),
      422,
      "parent_not_higher_level",
      "parent_provided_id",
    ],
    [
      "a parent at the same level",
      ({ parent }) => ({ provided_id: "bad-1", parent_provided_id: parent, hierarchy_level_name: "Customer" }),
      422,
      "parent_not_higher_level",
      "parent_provided_id",
    ],
    ["a schema that does not exist", () => ({ provided_id: "bad-1", mapping: { "99999": 1 } }), 422, "unknown_schema", "mapping.99999"],
  ];

  it.each(cases)("rejects %s", async (_name, body, status, code, field) => {
    const { write } = await workspace();
    const parent = unique("p");
    await createCustomer(write, { provided_id: parent });
    const res = await create(write, body({ parent }));
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(0);
    expect(res.body.error.code).toBe(code);
    if (field) expect(res.body.error.field).toBe(field);
    const list = await call("GET", "/api/customers/", { token: write });
    expect(list.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual([parent]);
  });

  it("rejects a data source that does not exist (422 unknown_data_source)", async () => {
    const { write } = await workspace();
    const { schemaId } = await schemaAndSource();
    const res = await create(write, { provided_id: "bad-ds", mapping: { [schemaId]: "no-such-source" } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "unknown_data_source", field: `mapping.${schemaId}` });
    expect((await getCustomer(write, "bad-ds")).status).toBe(404);
  });

  it("rejects a parent in another access group (422 parent_access_group_mismatch)", async () => {
    const a = await workspace();
    const b = await workspace();
    await createCustomer(a.write, { provided_id: "foreign-parent" });
    const res = await create(b.write, { provided_id: "wants-foreign", parent_provided_id: "foreign-parent", hierarchy_level_name: "User" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("parent_access_group_mismatch");
    expect((await getCustomer(b.write, "wants-foreign")).status).toBe(404);
  });

  it("reports existence (404) before rules (422)", async () => {
    const { write } = await workspace();
    const res = await create(write, {
      provided_id: "order",
      parent_provided_id: "ghost",
      group_tags: ["ghost"],
      hierarchy_level_name: "User",
    });
    expect(res.body.error.code).toBe("parent_not_found");
  });
});
