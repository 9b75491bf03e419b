import { describe, expect, it } from "vitest";
import { call, getCustomer, roundTrips, unique, workspace } from "../helpers/api";

const post = (token: string | undefined, path: string, body: unknown) => call("POST", path, { token, body });

function expectDeprecated(res: { headers: Headers }, successor: string) {
  expect(res.headers.get("Deprecation")).toBe("true");
  expect(res.headers.get("Link")).toBe(`<${successor}>; rel="successor-version"`);
}

describe("deprecated user groups", () => {
  it("create_user_group creates a root-level customer and returns the user-group shape", async () => {
    const { write, group } = await workspace();
    const res = await post(write, "/api/create_user_group/", {
      user_group_id: "ug-1",
      name: "Group One",
      properties: { a: 1 },
      is_demo_group: true,
    });
    expect(res.status).toBe(200);
    expectDeprecated(res, "/api/create_customer/");
    expect(roundTrips(res)).toBeLessThanOrEqual(2);
    expect(res.body).toEqual({
      success: 1,
      new_user_group: true,
      user_group: {
        team_id: expect.any(Number),
        token: expect.stringMatching(/^[0-9a-f]{64}$/),
        name: "Group One",
        provided_id: "ug-1",
        is_demo_group: true,
        properties: { a: 1 },
      },
    });
    expect(res.body.user_group).not.toHaveProperty("api_environment_tag");
    const customer = (await getCustomer(write, "ug-1")).body.customer;
    expect(customer).toMatchObject({ token: res.body.user_group.token, hierarchy_level: "Customer", access_group: group });
  });

  it("create_user_group returns an existing group unchanged", async () => {
    const { write } = await workspace();
    const first = await post(write, "/api/create_user_group/", { user_group_id: "ug-2", name: "First" });
    const second = await post(write, "/api/create_user_group/", { user_group_id: "ug-2", name: "Second", properties: { x: 1 } });
    expect(second.body).toEqual({ success: 1, new_user_group: false, user_group: first.body.user_group });
  });

  it("update_user_group replaces given fields and reports api_environment_tag", async () => {
    const { write } = await workspace();
    const created = await post(write, "/api/create_user_group/", { user_group_id: "ug-3", name: "Before", properties: { a: 1 } });
    const demo = await post(write, "/api/update_user_group/", { user_group_id: "ug-3", is_demo_group: true, properties: { b: 2 } });
    expect(demo.status).toBe(200);
    expectDeprecated(demo, "/api/update_customer/");
    expect(roundTrips(demo)).toBeLessThanOrEqual(2);
    expect(demo.body.user_group).toEqual({
      team_id: created.body.user_group.team_id,
      token: created.body.user_group.token,
      name: "Before",
      provided_id: "ug-3",
      is_demo_group: true,
      properties: { b: 2 },
      api_environment_tag: "Testing",
    });
    const paid = await post(write, "/api/update_user_group/", { user_group_id: "ug-3", is_demo_group: false });
    expect(paid.body.user_group.api_environment_tag).toBe("Customer");
  });

  it.each(["/api/create_user_group/", "/api/update_user_group/"])(
    "%s requires user_group_id (400, deprecated headers on the error)",
    async (path) => {
      const { write } = await workspace();
      const res = await post(write, path, { name: "No id" });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "user_group_id" });
      expect(res.headers.get("Deprecation")).toBe("true");
    },
  );

  it("update_user_group on an unknown group answers 404 naming user_group_id", async () => {
    const { write } = await workspace();
    const res = await post(write, "/api/update_user_group/", { user_group_id: "nobody", name: "x" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "user_group_id" });
    expectDeprecated(res, "/api/update_customer/");
  });

  it("carries the deprecation headers on authentication errors too", async () => {
    const res = await post(undefined, "/api/create_user_group/", { user_group_id: "x" });
    expect(res.status).toBe(401);
    expectDeprecated(res, "/api/create_customer/");
  });

  it("keeps user groups of one access group invisible to another", async () => {
    const a = await workspace();
    const b = await workspace();
    const id = unique("ug");
    await post(a.write, "/api/create_user_group/", { user_group_id: id });
    const res = await post(b.write, "/api/update_user_group/", { user_group_id: id, name: "hijack" });
    expect(res.status).toBe(404);
    const taken = await post(b.write, "/api/create_user_group/", { user_group_id: id });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "provided_id_taken", field: "user_group_id" });
  });
});
