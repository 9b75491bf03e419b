import { describe, expect, it } from "vitest";
import { call, roundTrips, unique, workspace } from "../helpers/api";

const post = (token: string, path: string, body: unknown) => call("POST", path, { token, body });

async function setup() {
  const ctx = await workspace();
  const group = await post(ctx.write, "/api/create_user_group/", { user_group_id: unique("eu-group") });
  return { ...ctx, teamId: group.body.user_group.team_id as number, token: group.body.user_group.token as string };
}

describe("deprecated end users", () => {
  it("create_end_user creates and returns attributes as a JSON string", async () => {
    const { write, teamId } = await setup();
    const attributes = { region: "EU", header: "<b>Hello</b>", footer: "<i>Bye</i>" };
    const res = await post(write, "/api/create_end_user/", { provided_id: "u1", email: "u1@x.example", customer_id: teamId, attributes });
    expect(res.status).toBe(200);
    expect(res.headers.get("Deprecation")).toBe("true");
    expect(res.headers.get("Link")).toBe('</api/update_customer/>; rel="successor-version"');
    expect(roundTrips(res)).toBeLessThanOrEqual(2);
    expect(res.body).toEqual({
      success: 1,
      end_user: { provided_id: "u1", email: "u1@x.example", attributes: JSON.stringify(attributes) },
    });
    expect(JSON.parse(res.body.end_user.attributes)).toEqual(attributes);
  });

  it('create_end_user without attributes answers "{}"', async () => {
    const { write, teamId } = await setup();
    const res = await post(write, "/api/create_end_user/", { provided_id: "u2", email: "u2@x.example", customer_id: teamId });
    expect(res.body.end_user.attributes).toBe("{}");
  });

  it("create_end_user returns an existing end user unchanged", async () => {
    const { write, teamId } = await setup();
    const first = await post(write, "/api/create_end_user/", {
      provided_id: "u3",
      email: "first@x.example",
      customer_id: teamId,
      attributes: { a: 1 },
    });
    const second = await post(write, "/api/create_end_user/", {
      provided_id: "u3",
      email: "second@x.example",
      customer_id: teamId,
      attributes: { a: 2 },
    });
    expect(second.body).toEqual(first.body);
    expect(roundTrips(second)).toBe(1);
  });

  it("keeps provided_id unique per customer only", async () => {
    const a = await setup();
    const other = await post(a.write, "/api/create_user_group/", { user_group_id: unique("eu-other") });
    const first = await post(a.write, "/api/create_end_user/", { provided_id: "same", email: "a@x.example", customer_id: a.teamId });
    const second = await post(a.write, "/api/create_end_user/", {
      provided_id: "same",
      email: "b@x.example",
      customer_id: other.body.user_group.team_id,
    });
    expect(first.body.end_user.email).toBe("a@x.example");
    expect(second.body.end_user.email).toBe("b@x.example");
  });

  it("update_end_user replaces email and attributes when given, keeps them otherwise", async () => {
    const { write, teamId } = await setup();
    await post(write, "/api/create_end_user/", {
      provided_id: "u4",
      email: "old@x.example",
      customer_id: teamId,
      attributes: { a: 1, b: 2 },
    });
    const attrs = await post(write, "/api/update_end_user/", { provided_id: "u4", customer_id: teamId, attributes: { c: 3 } });
    expect(roundTrips(attrs)).toBeLessThanOrEqual(2);
    expect(attrs.body.end_user).toEqual({ provided_id: "u4", email: "old@x.example", attributes: '{"c":3}' });
    const email = await post(write, "/api/update_end_user/", { provided_id: "u4", customer_id: teamId, email: "new@x.example" });
    expect(email.body.end_user).toEqual({ provided_id: "u4", email: "new@x.example", attributes: '{"c":3}' });
  });

  it("update_end_user creates a missing end user when email is given, else 400 on email", async () => {
    const { write, teamId } = await setup();
    const refused = await post(write, "/api/update_end_user/", { provided_id: "u5", customer_id: teamId, attributes: { a: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "email" });
    const created = await post(write, "/api/update_end_user/", { provided_id: "u5", customer_id: teamId, email: "u5@x.example" });
    expect(created.body.end_user).toEqual({ provided_id: "u5", email: "u5@x.example", attributes: "{}" });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["a missing provided_id", { email: "a@x.example" }, "provided_id"],
    ["a missing email", { provided_id: "x" }, "email"],
    ["an invalid email", { provided_id: "x", email: "nope" }, "email"],
    ["a customer_id that is not a number", { provided_id: "x", email: "a@x.example", customer_id: "12" }, "customer_id"],
    ["attributes that are not an object", { provided_id: "x", email: "a@x.example", attributes: "a=1" }, "attributes"],
  ];
  it.each(invalid)("create_end_user rejects %s (400 validation_error)", async (_name, body, field) => {
    const { write, teamId } = await setup();
    const res = await post(write, "/api/create_end_user/", { customer_id: teamId, ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(res.headers.get("Deprecation")).toBe("true");
  });

  it("answers an unknown or invisible user group with 404 customer_not_found", async () => {
    const { write, teamId } = await setup();
    const other = await workspace();
    for (const [token, id] of [
      [write, 99999999],
      [other.write, teamId],
    ] as const) {
      const res = await post(token, "/api/create_end_user/", { provided_id: "x", email: "a@x.example", customer_id: id });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "customer_id" });
      const upd = await post(token, "/api/update_end_user/", { provided_id: "x", customer_id: id, email: "a@x.example" });
      expect(upd.status).toBe(404);
    }
  });

  it("removes end users with their customer", async () => {
    const { write, teamId, token } = await setup();
    await post(write, "/api/create_end_user/", { provided_id: "gone", email: "g@x.example", customer_id: teamId });
    expect((await call("DELETE", "/api/delete_customer/", { token: write, body: { current_token: token } })).status).toBe(200);
    const { env } = await import("cloudflare:test");
    const row = await (env as unknown as { DB: D1Database }).DB.prepare("SELECT count(*) AS n FROM end_users WHERE customer_id = ?")
      .bind(teamId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("refuses a read token (403 read_only_token)", async () => {
    const { read, teamId } = await setup();
    const res = await post(read, "/api/create_end_user/", { provided_id: "x", email: "a@x.example", customer_id: teamId });
    expect(res.status).toBe(403);
  });
});
