import { describe, expect, it } from "vitest";
import { call, createCustomer, createTag, getCustomer, roundTrips, schemaAndSource, unique, workspace } from "../helpers/api";

const update = (token: string, body: unknown) => call("POST", "/api/update_customer/", { token, body });

describe("POST /api/update_customer/", () => {
  it("replaces each given field and keeps the others", async () => {
    const { write } = await workspace();
    await createTag(write, "gold");
    await createTag(write, "silver");
    const { schemaId, dataSourceId } = await schemaAndSource();
    const before = await createCustomer(write, {
      provided_id: "upd",
      name: "Before",
      emails: ["a@x.example"],
      group_tags: ["gold"],
      properties: { a: 1, b: 2 },
    });
    const res = await update(write, {
      provided_id: "upd",
      name: "After",
      group_tags: ["silver", "GOLD"],
      properties: { c: 3 },
      mapping: { [schemaId]: dataSourceId },
      is_demo_group: true,
    });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(2);
    expect(res.body.customer).toEqual({
      ...before,
      name: "After",
      group_tags: ["silver", "gold"],
      properties: { c: 3 },
      computed_properties: { c: 3 },
      is_demo_group: true,
      parent_schema_datasource_mapping: { [String(schemaId)]: String(dataSourceId) },
      computed_parent_schema_datasource_mapping: { [String(schemaId)]: String(dataSourceId) },
    });
    expect((await getCustomer(write, "upd")).body.customer).toEqual(res.body.customer);
  });

  it("clears properties and mapping with null", async () => {
    const { write } = await workspace();
    const { schemaId, dataSourceId } = await schemaAndSource();
    await createCustomer(write, { provided_id: "clear", properties: { a: 1 }, mapping: { [schemaId]: dataSourceId } });
    const res = await update(write, { provided_id: "clear", properties: null, mapping: null });
    expect(res.body.customer).toMatchObject({
      properties: null,
      computed_properties: {},
      parent_schema_datasource_mapping: null,
      computed_parent_schema_datasource_mapping: {},
    });
  });

  it("renames provided_id with new_provided_id; the token stays", async () => {
    const { write } = await workspace();
    const before = await createCustomer(write, { provided_id: "old-id" });
    const res = await update(write, { provided_id: "old-id", new_provided_id: "new-id" });
    expect(res.body.customer).toMatchObject({ provided_id: "new-id", token: before.token });
    expect((await getCustomer(write, "old-id")).status).toBe(404);
    expect((await getCustomer(write, "new-id")).status).toBe(200);
  });

  it("sets and removes a parent", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "up-parent", properties: { inherited: true } });
    await createCustomer(write, { provided_id: "up-child", hierarchy_level_name: "User" });
    const set = await update(write, { provided_id: "up-child", parent_provided_id: "up-parent" });
    expect(set.body.customer.computed_properties).toEqual({ inherited: true });
    const children = await call("GET", "/api/customers/?parent_provided_id=up-parent", { token: write });
    expect(children.body.customers).toHaveLength(1);
    const removed = await update(write, { provided_id: "up-child", parent_provided_id: null });
    expect(removed.body.customer.computed_properties).toEqual({});
    const none = await call("GET", "/api/customers/?parent_provided_id=up-parent", { token: write });
    expect(none.body.customers).toHaveLength(0);
  });

  it("lets a customer move to the root once its parent is removed in the same call", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "mv-parent" });
    await createCustomer(write, { provided_id: "mv-child", parent_provided_id: "mv-parent", hierarchy_level_name: "User" });
    const res = await update(write, { provided_id: "mv-child", parent_provided_id: null, hierarchy_level_name: "Customer" });
    expect(res.status).toBe(200);
    expect(res.body.customer.hierarchy_level).toBe("Customer");
  });
});

describe("update_customer errors change nothing", () => {
  async function setup() {
    const ctx = await workspace();
    const other = await workspace();
    const names = { id: unique("target"), parent: unique("parent"), sibling: unique("sibling"), foreign: unique("foreign") };
    await createCustomer(ctx.write, { provided_id: names.parent });
    await createCustomer(ctx.write, { provided_id: names.sibling });
    await createCustomer(ctx.write, { provided_id: names.id });
    await createCustomer(ctx.write, { provided_id: unique("kid"), parent_provided_id: names.id, hierarchy_level_name: "User" });
    await createCustomer(other.write, { provided_id: names.foreign });
    const before = (await getCustomer(ctx.write, names.id)).body.customer;
    return { ...ctx, names, before };
  }

  type Names = { id: string; parent: string; sibling: string; foreign: string };
  const cases: [string, (n: Names) => Record<string, unknown>, number, string, string][] = [
    ["a missing provided_id", () => ({ name: "x" }), 400, "validation_error", "provided_id"],
    ["an empty name", (n) => ({ provided_id: n.id, name: "" }), 400, "validation_error", "name"],
    ["emails that are not strings", (n) => ({ provided_id: n.id, emails: [1] }), 400, "validation_error", "emails.0"],
    ["an unknown customer", () => ({ provided_id: "nobody", name: "x" }), 404, "customer_not_found", "provided_id"],
    ["an unknown parent", (n) => ({ provided_id: n.id, parent_provided_id: "ghost" }), 404, "parent_not_found", "parent_provided_id"],
    [
      "a new_provided_id that another customer has",
      (n) => ({ provided_id: n.id, new_provided_id: n.sibling }),
      409,
      "provided_id_taken",
      "new_provided_id",
    ],
    [
      "a new_provided_id used in another access group",
      (n) => ({ provided_id: n.id, new_provided_id: n.foreign }),
      409,
      "provided_id_taken",
      "new_provided_id",
    ],
    ["an unknown group tag", (n) => ({ provided_id: n.id, group_tags: ["ghost"] }), 422, "unknown_group_tag", "group_tags.0"],
    [
      "an unknown hierarchy level",
      (n) => ({ provided_id: n.id, hierarchy_level_name: "Galaxy" }),
      422,
      "unknown_hierarchy_level",
      "hierarchy_level_name",
    ],
    [
      "a parent in another access group",
      (n) => ({ provided_id: n.id, parent_provided_id: n.foreign }),
      422,
      "parent_access_group_mismatch",
      "parent_provided_id",
    ],
    [
      "a parent at the same level",
      (n) => ({ provided_id: n.id, parent_provided_id: n.parent }),
      422,
      "parent_not_higher_level",
      "parent_provided_id",
    ],
    ["itself as parent", (n) => ({ provided_id: n.id, parent_provided_id: n.id }), 422, "parent_not_higher_level", "parent_provided_id"],
    [
      "a move to its children's level",
      (n) => ({ provided_id: n.id, hierarchy_level_name: "User" }),
      422,
      "parent_not_higher_level",
      "hierarchy_level_name",
    ],
    ["an unknown schema in the mapping", (n) => ({ provided_id: n.id, mapping: { "424242": 1 } }), 422, "unknown_schema", "mapping.424242"],
  ];

  it.each(cases)("rejects %s", async (_name, body, status, code, field) => {
    const { write, names, before } = await setup();
    const res = await update(write, body(names));
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    expect((await getCustomer(write, names.id)).body.customer).toEqual(before);
  });

  it("rejects moving a child to its parent's level (422 parent_not_higher_level)", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "lvl-p" });
    await createCustomer(write, { provided_id: "lvl-c", parent_provided_id: "lvl-p", hierarchy_level_name: "User" });
    const res = await update(write, { provided_id: "lvl-c", hierarchy_level_name: "Customer" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("parent_not_higher_level");
    expect((await getCustomer(write, "lvl-c")).body.customer.hierarchy_level).toBe("User");
  });
});
