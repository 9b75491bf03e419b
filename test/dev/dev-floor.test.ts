import { beforeAll, describe, expect, it } from "vitest";
import { call, callWithEnv } from "../helpers/api";
import { onWarehouse } from "../helpers/warehouse";

const asAdmin = { admin: true };

/** The benchmark's floor routes: what `npm run bench` compares get_customer with. */
describe("benchmark floor routes (development only)", () => {
  it("answers one trivial D1 query in one round trip", async () => {
    const res = await call("GET", "/_dev/floor/d1", asAdmin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, one: 1 });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
  });

  it("echoes a JSON body without touching D1", async () => {
    const res = await call("POST", "/_dev/floor/echo", { ...asAdmin, body: { provided_id: "x" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, body: { provided_id: "x" } });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("0");
  });

  it("reads the body under the API's body rules and runs one query", async () => {
    const res = await call("POST", "/_dev/floor/body-d1", { ...asAdmin, body: { provided_id: "x" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, one: 1, body: { provided_id: "x" } });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");

    const notJson = await call("POST", "/_dev/floor/body-d1", {
      ...asAdmin,
      rawBody: "provided_id=x",
      headers: { "Content-Type": "text/plain" },
    });
    expect(notJson.status).toBe(415);
    expect(notJson.body.error.code).toBe("unsupported_media_type");
    expect(notJson.headers.get("X-D1-Round-Trips")).toBe("0");
  });

  it("does not exist in production (404 route_not_found)", async () => {
    for (const [method, path] of [
      ["GET", "/_dev/floor/d1"],
      ["POST", "/_dev/floor/echo"],
      ["POST", "/_dev/floor/body-d1"],
    ]) {
      const res = await callWithEnv({ ENVIRONMENT: "production" }, method, path, method === "POST" ? { ...asAdmin, body: {} } : asAdmin);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("route_not_found");
    }
  });
});

describe("development routes need the admin token (all but the outbox)", () => {
  const routes: [string, string, unknown][] = [
    ["GET", "/_dev/floor/d1", undefined],
    ["POST", "/_dev/floor/echo", {}],
    ["POST", "/_dev/floor/body-d1", {}],
    ["POST", "/_dev/floor/report-sql", { binding: "DEMO_DATA", kind: "d1", sql: "SELECT 1 AS one", params: [] }],
    ["POST", "/_dev/report-sql/no-such-blueprint", { dataset: "orders", columns: ["id"] }],
    ["GET", "/_dev/delivery-stages/no-such-job", undefined],
    ["POST", "/_dev/charts/forget", {}],
    ["POST", "/_dev/share-link", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" }],
  ];

  it.each(routes)("%s %s: 401 invalid_admin_token without it, or with another token", async (method, path, body) => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: "Bearer not-the-admin-token" },
      { Authorization: "Token test-admin-token" },
    ];
    for (const headers of attempts) {
      const res = await call(method, path, { body, headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.code).toBe("invalid_admin_token");
    }
  });

  it("with it the SQL floor runs a read (control); the outbox opens without it", async () => {
    const floor = await call("POST", "/_dev/floor/report-sql", { ...asAdmin, body: routes[3][2] });
    expect(floor.status).toBe(200);
    expect(floor.body.rows).toEqual([{ one: 1 }]);
    const outbox = await call("GET", "/_dev/outbox");
    expect(outbox.status).toBe(200);
    expect(String(outbox.body)).toContain("Local outbox");
  });
});

describe("PostgreSQL in the development SQL route runs read-only", () => {
  beforeAll(async () => {
    // A function the read-only rule cannot see into: it writes when called.
    await onWarehouse(`
      CREATE TABLE IF NOT EXISTS dev_floor_writes (at timestamptz DEFAULT now());
      TRUNCATE dev_floor_writes;
      CREATE OR REPLACE FUNCTION dev_floor_write() RETURNS integer LANGUAGE sql AS
        'INSERT INTO dev_floor_writes DEFAULT VALUES RETURNING 1';`);
  });

  const floor = (sql: string) =>
    call("POST", "/_dev/floor/report-sql", { ...asAdmin, body: { binding: "WAREHOUSE", kind: "postgres", sql, params: [] } });

  it("refuses a write hidden in a function (the READ ONLY transaction): nothing written", async () => {
    const res = await floor("SELECT dev_floor_write() AS wrote");
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/read-only/i);
    expect(await onWarehouse("SELECT count(*)::int AS n FROM dev_floor_writes")).toEqual([{ n: 0 }]);
  });

  it("runs a read with its parameters (control)", async () => {
    const res = await call("POST", "/_dev/floor/report-sql", {
      ...asAdmin,
      body: { binding: "WAREHOUSE", kind: "postgres", sql: "SELECT $1::int + 1 AS n", params: [41] },
    });
    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([{ n: 42 }]);
  });
});
