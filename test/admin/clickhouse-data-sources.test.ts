import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";

// A ClickHouse data source (docs/clickhouse.md): created with `connection` instead of a binding,
// its URL under the webhook destination rules, its password write-only and stored sealed.
const list = async () => (await admin("GET", "/admin/data_sources/")).body.data_sources as { id: number; connection: unknown }[];
const stored = async (id: number) =>
  (
    await (env as unknown as { DB: D1Database }).DB.prepare("SELECT connection FROM data_sources WHERE id = ?")
      .bind(id)
      .first<{ connection: string }>()
  )?.connection;
const connection = { url: "https://analytics.example.com:8443", user: "dashboards_reader", password: "s3cret-Pa55word" };

describe("POST /admin/data_sources/ with kind clickhouse", () => {
  it("answers the connection without the password (password_set), and stores only a sealed password", async () => {
    const res = await admin("POST", "/admin/data_sources/", {
      name: "Events",
      kind: "clickhouse",
      connection: { ...connection, database: "events" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data_source).toEqual({
      id: expect.any(Number),
      provided_id: null,
      name: "Events",
      binding: null,
      kind: "clickhouse",
      connection: { url: "https://analytics.example.com:8443", database: "events", user: "dashboards_reader", password_set: true },
      namespace: null,
      access_groups: null,
    });
    expect(await list()).toContainEqual(res.body.data_source);
    expect(JSON.stringify(await list())).not.toContain(connection.password);
    const row = await stored(res.body.data_source.id);
    expect(row).toContain('"password":"v1.');
    expect(row).not.toContain(connection.password);
  });

  it.each([
    ["plain http to a public host", "http://analytics.example.com:8123", "https"],
    ["a private address", "https://10.0.0.5:8443", "private"],
    ["a loopback name", "https://localhost:8443", "this machine"],
    ["a name under .internal", "https://clickhouse.internal", "private network"],
    ["a wildcard-DNS name", "https://127.0.0.1.nip.io", "wildcard-DNS"],
    ["an IPv4-mapped loopback", "https://[::ffff:127.0.0.1]:8443", "loopback"],
    ["a path after the port", "https://analytics.example.com:8443/query", "nothing after the port"],
    ["credentials in the URL", "https://u:p@analytics.example.com", "user name or password"],
  ])("refuses %s (400 validation_error on connection.url) and stores nothing", async (_case, url, says) => {
    const before = await list();
    const res = await admin("POST", "/admin/data_sources/", { name: "x", kind: "clickhouse", connection: { ...connection, url } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: 0, error: { code: "validation_error", field: "connection.url" } });
    expect(res.body.error.message).toContain(says);
    expect(await list()).toEqual(before);
  });

  it("allows plain http to 127.0.0.1 and localhost in development (the control: ENVIRONMENT=development here)", async () => {
    for (const url of ["http://127.0.0.1:8123", "http://localhost:8123"]) {
      const res = await admin("POST", "/admin/data_sources/", { name: "Local", kind: "clickhouse", connection: { ...connection, url } });
      expect(res.status).toBe(200);
    }
  });

  it("refuses a binding for ClickHouse, a connection for the other kinds, and a ClickHouse source without one", async () => {
    const withBinding = await admin("POST", "/admin/data_sources/", { name: "x", kind: "clickhouse", binding: "WAREHOUSE", connection });
    expect(withBinding.body.error).toMatchObject({ code: "validation_error", field: "binding" });
    const withConnection = await admin("POST", "/admin/data_sources/", { name: "x", kind: "postgres", binding: "WAREHOUSE", connection });
    expect(withConnection.body.error).toMatchObject({ code: "validation_error", field: "connection" });
    const without = await admin("POST", "/admin/data_sources/", { name: "x", kind: "clickhouse" });
    expect(without.body.error).toMatchObject({ code: "validation_error", field: "connection" });
  });
});

describe("POST /admin/update_data_source/ with a connection", () => {
  it("keeps the password when none is given, replaces it when one is, and never answers it", async () => {
    const created = (await admin("POST", "/admin/data_sources/", { name: "Events", kind: "clickhouse", connection })).body.data_source;
    const sealed = await stored(created.id);
    const renamed = await admin("POST", "/admin/update_data_source/", {
      id: created.id,
      connection: { user: "other_reader", database: "tenant_1" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data_source.connection).toEqual({
      url: connection.url,
      database: "tenant_1",
      user: "other_reader",
      password_set: true,
    });
    const kept = JSON.parse((await stored(created.id)) as string);
    expect(kept.password).toBe(JSON.parse(sealed as string).password);
    const replaced = await admin("POST", "/admin/update_data_source/", { id: created.id, connection: { password: "a-new-one" } });
    expect(replaced.status).toBe(200);
    expect(JSON.stringify(replaced.body)).not.toContain("a-new-one");
    const now = JSON.parse((await stored(created.id)) as string);
    expect(now.password).not.toBe(kept.password);
    expect(now.user).toBe("other_reader");
  });

  it("checks a new URL as on create, and refuses a connection for a source of another kind", async () => {
    const created = (await admin("POST", "/admin/data_sources/", { name: "Events", kind: "clickhouse", connection })).body.data_source;
    const bad = await admin("POST", "/admin/update_data_source/", { id: created.id, connection: { url: "https://192.168.1.10" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("connection.url");
    expect((await list()).find((s) => s.id === created.id)?.connection).toMatchObject({ url: connection.url });
    const d1 = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source;
    const refused = await admin("POST", "/admin/update_data_source/", { id: d1.id, connection: { password: "x" } });
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "connection" });
  });
});
