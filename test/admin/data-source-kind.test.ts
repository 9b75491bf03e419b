import { describe, expect, it } from "vitest";
import { admin, call } from "../helpers/api";

const list = async () => (await admin("GET", "/admin/data_sources/")).body.data_sources as { id: number }[];

describe("POST /admin/data_sources/ with kind", () => {
  it("registers a postgres data source on the WAREHOUSE Hyperdrive binding and answers with its kind", async () => {
    const res = await admin("POST", "/admin/data_sources/", { name: "Warehouse", binding: "WAREHOUSE", kind: "postgres" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: 1,
      data_source: {
        id: expect.any(Number),
        provided_id: null,
        name: "Warehouse",
        binding: "WAREHOUSE",
        kind: "postgres",
        connection: null,
        namespace: null,
        access_groups: null,
      },
    });
    expect(await list()).toContainEqual(res.body.data_source);
  });

  it("registers a mysql data source on the WAREHOUSE_MYSQL Hyperdrive binding", async () => {
    const res = await admin("POST", "/admin/data_sources/", { name: "Shop", binding: "WAREHOUSE_MYSQL", kind: "mysql" });
    expect(res.status).toBe(200);
    expect(res.body.data_source).toMatchObject({ binding: "WAREHOUSE_MYSQL", kind: "mysql", namespace: null });
    expect(await list()).toContainEqual(res.body.data_source);
  });

  it("defaults to kind d1", async () => {
    const res = await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" });
    expect(res.status).toBe(200);
    expect(res.body.data_source.kind).toBe("d1");
  });

  it.each([
    ["a binding the Worker does not have", { binding: "NO_SUCH_WAREHOUSE", kind: "postgres" }],
    ["a D1 binding given as postgres", { binding: "DEMO_DATA", kind: "postgres" }],
    ["a Hyperdrive binding given as d1", { binding: "WAREHOUSE", kind: "d1" }],
    ["a Hyperdrive binding without kind (d1 by default)", { binding: "WAREHOUSE" }],
    ["a PostgreSQL Hyperdrive binding given as mysql", { binding: "WAREHOUSE", kind: "mysql" }],
    ["a MySQL Hyperdrive binding given as postgres", { binding: "WAREHOUSE_MYSQL", kind: "postgres" }],
  ])("refuses %s (400 validation_error on binding) and creates nothing", async (_case, body) => {
    const before = await list();
    const res = await admin("POST", "/admin/data_sources/", { name: "x", ...body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: 0, error: { code: "validation_error", field: "binding" } });
    expect(await list()).toEqual(before);
  });

  it("refuses an unknown kind (400 validation_error on kind) and creates nothing", async () => {
    const before = await list();
    const res = await admin("POST", "/admin/data_sources/", { name: "x", binding: "WAREHOUSE", kind: "oracle" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: 0, error: { code: "validation_error", field: "kind" } });
    expect(await list()).toEqual(before);
  });

  it("documents kind in /openapi.json", async () => {
    const spec = (await call("GET", "/openapi.json")).body;
    expect(spec.components.schemas.DataSource.properties.kind.enum).toEqual(["d1", "postgres", "mysql", "clickhouse"]);
    const body = spec.paths["/admin/data_sources/"].post.requestBody.content["application/json"].schema;
    expect(JSON.stringify(body)).toContain('"postgres"');
  });
});
