import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, getCustomer, roundTrips, workspace } from "../helpers/api";

describe("POST /api/get_customer/", () => {
  it("returns the customer in one D1 round trip", async () => {
    const { write, read } = await workspace();
    const created = await createCustomer(write, { provided_id: "get-me", properties: { a: 1 } });
    const res = await getCustomer(read, "get-me");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, customer: created });
    expect(roundTrips(res)).toBe(1);
  });

  it("is case-sensitive on provided_id (404 customer_not_found)", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: "CaseSensitive" });
    const res = await getCustomer(write, "casesensitive");
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "provided_id" });
  });

  it("rejects a provided_id of the wrong type (400 validation_error)", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: 12 } });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("provided_id");
  });
});

describe("a customer's own group tags, never its ancestors'", () => {
  it("shows each customer's tags in get_customer and in list pages, whether or not its parent is on the page", async () => {
    const { write } = await workspace();
    for (const name of ["parent-tag", "child-tag"]) await call("POST", "/api/create_group_tag/", { token: write, body: { name } });
    await createCustomer(write, { provided_id: "tagged-root", group_tags: ["parent-tag"] });
    await createCustomer(write, {
      provided_id: "tagged-child",
      parent_provided_id: "tagged-root",
      hierarchy_level_name: "User",
      group_tags: ["child-tag"],
    });
    expect((await getCustomer(write, "tagged-child")).body.customer.group_tags).toEqual(["child-tag"]);
    expect((await getCustomer(write, "tagged-root")).body.customer.group_tags).toEqual(["parent-tag"]);
    const tagsOf = (res: { body: { customers: { provided_id: string; group_tags: string[] }[] } }) =>
      Object.fromEntries(res.body.customers.map((c) => [c.provided_id, c.group_tags]));
    expect(tagsOf(await call("GET", "/api/v2/customers/", { token: write }))).toEqual({
      "tagged-root": ["parent-tag"],
      "tagged-child": ["child-tag"],
    });
    // The child alone on its page: its parent is read for computed fields only.
    expect(tagsOf(await call("GET", "/api/customers/?parent_provided_id=tagged-root", { token: write }))).toEqual({
      "tagged-child": ["child-tag"],
    });
  });
});

describe("GET /api/customers/ (v1)", () => {
  let token: string;
  beforeAll(async () => {
    ({ write: token } = await workspace());
    await createCustomer(token, { provided_id: "root-a" });
    await createCustomer(token, { provided_id: "root-b" });
    await createCustomer(token, { provided_id: "a-1", parent_provided_id: "root-a", hierarchy_level_name: "User" });
    await createCustomer(token, { provided_id: "a-2", parent_provided_id: "root-a", hierarchy_level_name: "User" });
    await createCustomer(token, { provided_id: "b-1", parent_provided_id: "root-b", hierarchy_level_name: "User" });
  });
  const ids = (res: { body: { customers: { provided_id: string }[] } }) => res.body.customers.map((c) => c.provided_id);

  it("lists every visible customer in creation order", async () => {
    const res = await call("GET", "/api/customers/", { token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(["root-a", "root-b", "a-1", "a-2", "b-1"]);
  });

  it("filters by parent_provided_id", async () => {
    expect(ids(await call("GET", "/api/customers/?parent_provided_id=root-a", { token }))).toEqual(["a-1", "a-2"]);
  });

  it("filters by hierarchy_level_name", async () => {
    expect(ids(await call("GET", "/api/customers/?hierarchy_level_name=Customer", { token }))).toEqual(["root-a", "root-b"]);
  });

  it("combines both filters", async () => {
    expect(ids(await call("GET", "/api/customers/?parent_provided_id=root-b&hierarchy_level_name=User", { token }))).toEqual(["b-1"]);
    expect(ids(await call("GET", "/api/customers/?parent_provided_id=root-b&hierarchy_level_name=Customer", { token }))).toEqual([]);
  });

  it("gives an empty list for names that match nothing", async () => {
    expect(ids(await call("GET", "/api/customers/?parent_provided_id=nobody", { token }))).toEqual([]);
    expect(ids(await call("GET", "/api/customers/?hierarchy_level_name=Nowhere", { token }))).toEqual([]);
  });

  it("fills computed fields of listed children from their parents", async () => {
    await call("POST", "/api/update_customer/", { token, body: { provided_id: "root-a", properties: { region: "EU" } } });
    const res = await call("GET", "/api/customers/?parent_provided_id=root-a", { token });
    expect(res.body.customers[0].computed_properties).toEqual({ region: "EU" });
    expect(res.body.customers[0].properties).toBeNull();
  });
});

describe("GET /api/v2/customers/ (paged)", () => {
  let token: string;
  beforeAll(async () => {
    ({ write: token } = await workspace());
    for (let i = 1; i <= 7; i++) await createCustomer(token, { provided_id: `c${i}` });
  });

  it("defaults to page 1 of 100", async () => {
    const res = await call("GET", "/api/v2/customers/", { token });
    expect(res.body).toMatchObject({ success: 1, total_count: 7, page: 1, page_size: 100, next_page: null });
    expect(res.body.customers).toHaveLength(7);
  });

  it("pages with next_page until the last page", async () => {
    const first = await call("GET", "/api/v2/customers/?page_size=3", { token });
    expect(first.body).toMatchObject({ total_count: 7, page: 1, page_size: 3, next_page: 2 });
    expect(first.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual(["c1", "c2", "c3"]);
    const last = await call("GET", "/api/v2/customers/?page_size=3&page=3", { token });
    expect(last.body).toMatchObject({ page: 3, next_page: null });
    expect(last.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual(["c7"]);
  });

  it("ends exactly on a full last page with next_page null", async () => {
    const res = await call("GET", "/api/v2/customers/?page_size=7", { token });
    expect(res.body.next_page).toBeNull();
    expect(res.body.customers).toHaveLength(7);
  });

  it("answers a page past the end with an empty list", async () => {
    const res = await call("GET", "/api/v2/customers/?page_size=3&page=9", { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_count: 7, page: 9, next_page: null, customers: [] });
  });

  it.each([
    ["page_size=0", "page_size"],
    ["page_size=1001", "page_size"],
    ["page_size=abc", "page_size"],
    ["page=0", "page"],
    ["page=1.5", "page"],
  ])("rejects %s (400 validation_error)", async (query, field) => {
    const res = await call("GET", `/api/v2/customers/?${query}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
  });

  it("accepts the bounds page_size=1 and page_size=1000", async () => {
    expect((await call("GET", "/api/v2/customers/?page_size=1", { token })).body.customers).toHaveLength(1);
    expect((await call("GET", "/api/v2/customers/?page_size=1000", { token })).body.customers).toHaveLength(7);
  });

  it("costs one D1 round trip per page", async () => {
    expect(roundTrips(await call("GET", "/api/v2/customers/?page_size=2&page=2", { token }))).toBe(1);
  });
});
