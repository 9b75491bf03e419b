import { describe, expect, it } from "vitest";
import { call, createCustomer, createTag, getCustomer, roundTrips, workspace } from "../helpers/api";

const del = (token: string, current_token: unknown) => call("DELETE", "/api/delete_customer/", { token, body: { current_token } });

describe("DELETE /api/delete_customer/", () => {
  it("deletes a customer by its current token in one D1 round trip", async () => {
    const { write } = await workspace();
    await createTag(write, "t");
    const customer = await createCustomer(write, { provided_id: "doomed", group_tags: ["t"] });
    const res = await del(write, customer.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1 });
    expect(roundTrips(res)).toBe(1);
    expect((await getCustomer(write, "doomed")).status).toBe(404);
    // The provided_id is free again.
    const again = await createCustomer(write, { provided_id: "doomed" });
    expect(again.group_tags).toEqual([]);
  });

  it("refuses a customer with children (409 customer_has_children), then allows it once they are gone", async () => {
    const { write } = await workspace();
    const parent = await createCustomer(write, { provided_id: "has-kids" });
    const child = await createCustomer(write, { provided_id: "kid", parent_provided_id: "has-kids", hierarchy_level_name: "User" });
    const refused = await del(write, parent.token);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("customer_has_children");
    expect((await getCustomer(write, "has-kids")).body.customer).toEqual(parent);

    expect((await del(write, child.token)).status).toBe(200);
    expect((await del(write, parent.token)).status).toBe(200);
  });

  it("allows deleting a parent once the child's parent is removed", async () => {
    const { write } = await workspace();
    const parent = await createCustomer(write, { provided_id: "p2" });
    await createCustomer(write, { provided_id: "c2", parent_provided_id: "p2", hierarchy_level_name: "User" });
    await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "c2", parent_provided_id: null } });
    expect((await del(write, parent.token)).status).toBe(200);
  });

  it("answers an unknown token with 404 customer_not_found", async () => {
    const { write } = await workspace();
    const res = await del(write, "f".repeat(64));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "current_token" });
  });

  it("rejects a missing current_token (400 validation_error)", async () => {
    const { write } = await workspace();
    const res = await call("DELETE", "/api/delete_customer/", { token: write, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("current_token");
  });
});

describe("POST /api/refresh_customer_token/", () => {
  it("gives a new token; the old one stops working at once", async () => {
    const { write } = await workspace();
    const customer = await createCustomer(write, { provided_id: "refresh-me" });
    const res = await call("POST", "/api/refresh_customer_token/", { token: write, body: { current_token: customer.token } });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(res.body.customer.token).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.customer.token).not.toBe(customer.token);
    expect(res.body.customer).toEqual({ ...customer, token: res.body.customer.token });

    const old = await call("POST", "/api/refresh_customer_token/", { token: write, body: { current_token: customer.token } });
    expect(old.status).toBe(404);
    expect(old.body.error.code).toBe("customer_not_found");
    expect((await del(write, customer.token)).status).toBe(404);
    expect((await getCustomer(write, "refresh-me")).body.customer.token).toBe(res.body.customer.token);
  });
});
