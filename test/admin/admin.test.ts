import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, getCustomer, unique, workspace } from "../helpers/api";

describe("admin: access groups and API tokens", () => {
  it("creates and lists access groups; refuses a duplicate (409 access_group_exists)", async () => {
    const name = unique("Team");
    const created = await admin("POST", "/admin/access_groups/", { name });
    expect(created.body).toEqual({ success: 1, access_group: { name } });
    const dup = await admin("POST", "/admin/access_groups/", { name: name.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("access_group_exists");
    const list = await admin("GET", "/admin/access_groups/");
    expect(list.body.access_groups).toContainEqual({ name });
  });

  it("rejects an access group without a name (400)", async () => {
    const res = await admin("POST", "/admin/access_groups/", { name: "" });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("name");
  });

  it("creates a token shown once, with 256 random bits", async () => {
    const group = unique("g");
    await admin("POST", "/admin/access_groups/", { name: group });
    const res = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "read", name: "dashboards" });
    expect(res.body).toMatchObject({ success: 1, api_token: { name: "dashboards", access_group: group, permission: "read" } });
    expect(res.body.api_token.id).toMatch(/^tok_/);
    expect(res.body.token).toMatch(/^cdk_[0-9a-f]{64}$/);
    const other = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "read" });
    expect(other.body.token).not.toBe(res.body.token);
  });

  it("refuses a token for an unknown access group (404 access_group_not_found) or permission (400)", async () => {
    const missing = await admin("POST", "/admin/api_tokens/", { access_group: "no-such-group", permission: "write" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("access_group_not_found");
    const group = unique("g");
    await admin("POST", "/admin/access_groups/", { name: group });
    const bad = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "admin" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("permission");
  });

  it("revokes idempotently and answers an unknown id with 404 api_token_not_found", async () => {
    const { group } = await workspace();
    const created = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "write" });
    expect((await admin("POST", "/admin/revoke_api_token/", { id: created.body.api_token.id })).status).toBe(200);
    expect((await admin("POST", "/admin/revoke_api_token/", { id: created.body.api_token.id })).status).toBe(200);
    const unknown = await admin("POST", "/admin/revoke_api_token/", { id: "tok_nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("api_token_not_found");
  });
});

describe("admin: hierarchy levels", () => {
  it("starts with Customer (root) and User", async () => {
    expect((await admin("GET", "/admin/hierarchy_levels/")).body).toEqual({ success: 1, levels: ["Customer", "User"] });
  });

  it.each([
    [{ levels: [] }],
    [{ levels: ["A", "A"] }],
    [{ levels: ["A", ""] }],
    [{ levels: Array.from({ length: 11 }, (_, i) => `L${i}`) }],
    [{}],
  ])("rejects %j (400 validation_error) and keeps the levels", async (body) => {
    const res = await admin("PUT", "/admin/hierarchy_levels/", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: expect.stringMatching(/^levels/) });
    expect((await admin("GET", "/admin/hierarchy_levels/")).body.levels).toEqual(["Customer", "User"]);
  });

  it("adds and reorders levels; customers stay on theirs", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "lv-user", hierarchy_level_name: "User" });
    const res = await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "Region", "User"] });
    expect(res.body.levels).toEqual(["Customer", "Region", "User"]);
    expect((await getCustomer(write, "lv-user")).body.customer.hierarchy_level).toBe("User");
    const child = await call("POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: "lv-region", hierarchy_level_name: "Region" },
    });
    expect(child.status).toBe(200);
  });

  it("refuses removing a level with customers (409 hierarchy_level_in_use)", async () => {
    const before = (await admin("GET", "/admin/hierarchy_levels/")).body.levels;
    const res = await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "User"] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("hierarchy_level_in_use");
    expect((await admin("GET", "/admin/hierarchy_levels/")).body.levels).toEqual(before);
  });

  it("refuses an order that puts a parent at or below its child (409 hierarchy_level_in_use)", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "ord-parent" });
    await createCustomer(write, { provided_id: "ord-child", parent_provided_id: "ord-parent", hierarchy_level_name: "User" });
    const before = (await admin("GET", "/admin/hierarchy_levels/")).body.levels;
    const res = await admin("PUT", "/admin/hierarchy_levels/", { levels: ["User", "Region", "Customer"] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("hierarchy_level_in_use");
    expect((await admin("GET", "/admin/hierarchy_levels/")).body.levels).toEqual(before);
  });

  it("removes an unused level", async () => {
    const { write } = await workspace();
    await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "Region", "User", "Spare"] });
    const res = await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "Region", "User"] });
    expect(res.status).toBe(200);
    const refused = await call("POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: "spare", hierarchy_level_name: "Spare" },
    });
    expect(refused.body.error.code).toBe("unknown_hierarchy_level");
  });
});

describe("admin: schemas and data sources", () => {
  it("creates and lists schemas", async () => {
    const res = await admin("POST", "/admin/schemas/", { name: "sales" });
    expect(res.body).toEqual({ success: 1, schema: { id: expect.any(Number), name: "sales" } });
    expect((await admin("GET", "/admin/schemas/")).body.schemas).toContainEqual(res.body.schema);
  });

  it("registers a D1 binding as a data source", async () => {
    const res = await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA", provided_id: "demo-db" });
    expect(res.body).toEqual({
      success: 1,
      data_source: {
        id: expect.any(Number),
        provided_id: "demo-db",
        name: "Demo",
        binding: "DEMO_DATA",
        kind: "d1",
        connection: null,
        namespace: null,
        access_groups: null,
      },
    });
    const plain = await admin("POST", "/admin/data_sources/", { name: "Again", binding: "DEMO_DATA" });
    expect(plain.body.data_source.provided_id).toBeNull();
    const dup = await admin("POST", "/admin/data_sources/", { name: "Dup", binding: "DEMO_DATA", provided_id: "demo-db" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("data_source_exists");
    expect((await admin("GET", "/admin/data_sources/")).body.data_sources).toContainEqual(res.body.data_source);
  });

  it("refuses a binding that is not a D1 database of this Worker (400)", async () => {
    for (const binding of ["NOPE", "LINKS"]) {
      const res = await admin("POST", "/admin/data_sources/", { name: "x", binding });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "binding" });
    }
  });

  it("refuses the service's own database as a data source (400 on binding), creating nothing", async () => {
    const before = (await admin("GET", "/admin/data_sources/")).body.data_sources.length;
    const res = await admin("POST", "/admin/data_sources/", { name: "Secrets", binding: "DB" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "binding", message: expect.stringContaining("own database") });
    expect((await admin("GET", "/admin/data_sources/")).body.data_sources).toHaveLength(before);
  });
});
