import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, sha256, unique, workspace } from "../helpers/api";

const writeOperations: [string, string, (id: string) => unknown][] = [
  ["POST", "/api/create_customer/", (id) => ({ provided_id: id })],
  ["POST", "/api/update_customer/", (id) => ({ provided_id: id, name: "changed" })],
  ["DELETE", "/api/delete_customer/", () => ({ current_token: "0".repeat(64) })],
  ["POST", "/api/refresh_customer_token/", () => ({ current_token: "0".repeat(64) })],
  ["POST", "/api/create_group_tag/", () => ({ name: unique("tag") })],
  ["POST", "/api/rename_group_tag/", () => ({ name: "a", new_name: "b" })],
  ["POST", "/api/delete_group_tag/", () => ({ name: "a" })],
];

describe("API token authentication", () => {
  it("rejects a call without a token (401 missing_api_token, WWW-Authenticate: Token)", async () => {
    const res = await call("POST", "/api/get_customer/", { body: { provided_id: "x" } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: 0, error: { code: "missing_api_token" } });
    expect(res.headers.get("WWW-Authenticate")).toBe("Token");
  });

  it("rejects a malformed header (401 invalid_api_token)", async () => {
    for (const header of ["Bearer abc", "Token", "tokenabc", "Token a b"]) {
      const res = await call("GET", "/api/customers/", { headers: { "Service-Authorization": header } });
      expect(res.status, header).toBe(401);
      expect(res.body.error.code).toBe("invalid_api_token");
    }
  });

  it("rejects an unknown token (401 invalid_api_token)", async () => {
    const res = await call("GET", "/api/customers/", { token: `cdk_${"ab".repeat(32)}` });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_api_token");
  });

  it("stops accepting a token the moment it is revoked", async () => {
    const { group } = await workspace();
    const created = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "write", name: "to revoke" });
    const token = created.body.token;
    expect((await call("GET", "/api/customers/", { token })).status).toBe(200);
    const revoked = await admin("POST", "/admin/revoke_api_token/", { id: created.body.api_token.id });
    expect(revoked.body).toEqual({ success: 1 });
    const after = await call("GET", "/api/customers/", { token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_api_token");
  });

  it("lets a read token call every read operation", async () => {
    const { write, read } = await workspace();
    const id = unique("readable");
    await createCustomer(write, { provided_id: id });
    expect((await call("POST", "/api/get_customer/", { token: read, body: { provided_id: id } })).status).toBe(200);
    expect((await call("GET", "/api/customers/", { token: read })).status).toBe(200);
    expect((await call("GET", "/api/v2/customers/", { token: read })).status).toBe(200);
    expect((await call("GET", "/api/group_tags/", { token: read })).status).toBe(200);
  });

  it.each(writeOperations)("refuses a read token on %s %s (403 read_only_token) and changes nothing", async (method, path, body) => {
    const { write, read } = await workspace();
    const id = unique("ro");
    await createCustomer(write, { provided_id: id });
    const res = await call(method, path, { token: read, body: body(id) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("read_only_token");
    const after = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: id } });
    expect(after.body.customer.name).toBe(id);
  });

  it("checks permission before the body (read token + invalid JSON → 403)", async () => {
    const { read } = await workspace();
    const res = await call("POST", "/api/create_customer/", { token: read, rawBody: "{", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(403);
  });

  it("stores API tokens only as SHA-256 hashes", async () => {
    const { env } = await import("cloudflare:test");
    const { write } = await workspace();
    const db = (env as unknown as { DB: D1Database }).DB;
    const plain = await db
      .prepare("SELECT count(*) AS n FROM api_tokens WHERE token_hash = ? OR id = ?")
      .bind(write, write)
      .first<{ n: number }>();
    expect(plain?.n).toBe(0);
    const digest = await sha256(write);
    const hashed = await db.prepare("SELECT count(*) AS n FROM api_tokens WHERE token_hash = ?").bind(digest).first<{ n: number }>();
    expect(hashed?.n).toBe(1);
  });
});

describe("access groups isolate customers", () => {
  it("makes a customer of another access group 'not found' everywhere", async () => {
    const a = await workspace();
    const b = await workspace();
    const id = unique("isolated");
    const customer = await createCustomer(a.write, { provided_id: id });

    const get = await call("POST", "/api/get_customer/", { token: b.write, body: { provided_id: id } });
    expect(get.status).toBe(404);
    expect(get.body.error.code).toBe("customer_not_found");

    const update = await call("POST", "/api/update_customer/", { token: b.write, body: { provided_id: id, name: "hijack" } });
    expect(update.status).toBe(404);
    const del = await call("DELETE", "/api/delete_customer/", { token: b.write, body: { current_token: customer.token } });
    expect(del.status).toBe(404);
    const refresh = await call("POST", "/api/refresh_customer_token/", { token: b.write, body: { current_token: customer.token } });
    expect(refresh.status).toBe(404);

    const listB = await call("GET", "/api/customers/", { token: b.write });
    expect(listB.body.customers.map((c: { provided_id: string }) => c.provided_id)).not.toContain(id);
    const listA = await call("GET", "/api/v2/customers/", { token: a.read });
    expect(listA.body.customers.map((c: { provided_id: string }) => c.provided_id)).toContain(id);

    const stillThere = await call("POST", "/api/get_customer/", { token: a.write, body: { provided_id: id } });
    expect(stillThere.body.customer).toEqual(customer);
  });

  it("refuses a provided_id that another access group uses (409 provided_id_taken)", async () => {
    const a = await workspace();
    const b = await workspace();
    const id = unique("taken");
    await createCustomer(a.write, { provided_id: id });
    const res = await call("POST", "/api/create_customer/", { token: b.write, body: { provided_id: id } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: "provided_id_taken", field: "provided_id" });
  });
});

describe("admin authentication", () => {
  it("rejects /admin/ calls without the right bearer token (401 invalid_admin_token)", async () => {
    for (const headers of [{}, { Authorization: "Bearer wrong" }, { Authorization: "test-admin-token" }] as Record<string, string>[]) {
      const res = await call("GET", "/admin/access_groups/", { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_admin_token");
    }
  });

  it("does not accept an API token on /admin/", async () => {
    const { write } = await workspace();
    const res = await call("GET", "/admin/access_groups/", { headers: { Authorization: `Bearer ${write}` } });
    expect(res.status).toBe(401);
  });
});
