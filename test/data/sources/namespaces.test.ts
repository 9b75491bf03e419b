import { beforeAll, describe, expect, it } from "vitest";
import { admin, createCustomer, dashboard, embed, kpi, panelText, unique, workspace } from "../../helpers/dashboards";
import { mysqlAvailable, onMysql } from "../../helpers/mysql-warehouse";
import { onWarehouse } from "../../helpers/warehouse";

// One binding, many tenants (docs/mysql.md, docs/postgres.md): a data source per tenant on the same Hyperdrive
// binding, each with its namespace — the PostgreSQL schema first on the search path, the
// MySQL database selected before the panels run. The same panel SQL, with unqualified table
// names, shows each customer the rows of its own namespace.
const list = async () => (await admin("GET", "/admin/data_sources/")).body.data_sources as { id: number; namespace: string | null }[];

describe("namespace on data sources", () => {
  it("is answered (null when none), validated (400 on namespace) and changed by update_data_source", async () => {
    const created = await admin("POST", "/admin/data_sources/", {
      name: "Tenant",
      binding: "WAREHOUSE",
      kind: "postgres",
      namespace: "tenant_1",
      provided_id: unique("tenant-source"),
    });
    expect(created.status).toBe(200);
    expect(created.body.data_source).toMatchObject({ kind: "postgres", namespace: "tenant_1" });
    const { id, provided_id } = created.body.data_source as { id: number; provided_id: string };
    expect((await list()).find((s) => s.id === id)?.namespace).toBe("tenant_1");

    const before = await list();
    for (const namespace of ["tenant-1", "a".repeat(65), "", "t;DROP", "tenant 1", "ünïcode"]) {
      const refused = await admin("POST", "/admin/data_sources/", { name: "x", binding: "WAREHOUSE", kind: "postgres", namespace });
      expect(refused.status, namespace).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "validation_error", field: "namespace" });
      const update = await admin("POST", "/admin/update_data_source/", { id, namespace });
      expect(update.status, namespace).toBe(400);
    }
    // A D1 database has no namespaces.
    const d1 = await admin("POST", "/admin/data_sources/", { name: "x", binding: "DEMO_DATA", namespace: "main" });
    expect(d1.status).toBe(400);
    expect(d1.body.error).toMatchObject({ code: "validation_error", field: "namespace" });
    expect(await list()).toEqual(before);
    // The control: 64 letters, digits and _ are a namespace.
    const longest = await admin("POST", "/admin/update_data_source/", { id, namespace: `T_${"9".repeat(62)}` });
    expect(longest.status).toBe(200);

    const renamed = await admin("POST", "/admin/update_data_source/", { provided_id, namespace: "tenant_2", name: "Tenant 2" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data_source).toMatchObject({ id, name: "Tenant 2", namespace: "tenant_2" });
    const cleared = await admin("POST", "/admin/update_data_source/", { id, namespace: null });
    expect(cleared.body.data_source).toMatchObject({ id, name: "Tenant 2", namespace: null });
    const both = await admin("POST", "/admin/update_data_source/", { id, provided_id, namespace: null });
    expect(both.status).toBe(400);
    const unknown = await admin("POST", "/admin/update_data_source/", { provided_id: "no-such-source", namespace: null });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "data_source_not_found", field: "provided_id" });
  });
});

/** Two tenants on one binding, each customer mapped to its tenant's data source. */
async function tenants(binding: string, kind: string, namespaces: [string, string]) {
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("tenant-schema") })).body.schema.id as number;
  const viewers = [];
  for (const namespace of namespaces) {
    const source = (await admin("POST", "/admin/data_sources/", { name: namespace, binding, kind, namespace })).body.data_source
      .id as number;
    viewers.push({ source, ...(await createCustomer(write, { provided_id: unique(namespace), mapping: { [schema]: source } })) });
  }
  const embedId = await dashboard({
    panels: [
      kpi("rows", schema, "SELECT COUNT(*) AS value FROM orders", 0),
      kpi("total", schema, "SELECT SUM(amount) AS value FROM orders", 3),
      kpi("owner", schema, "SELECT MIN(tenant) AS value FROM orders", 6),
    ],
  });
  return { write, schema, viewers, embedId };
}

/** Renders both tenants' pages alternately; each must show its own rows every time. */
async function alternate(embedId: string, viewers: { token: string }[], expected: string[][], times: number) {
  for (let i = 0; i < times; i++) {
    for (const [v, viewer] of viewers.entries()) {
      const page = await embed(embedId, viewer.token);
      expect(page.status).toBe(200);
      expect(["rows", "total", "owner"].map((id) => panelText(page.body, id))).toEqual(expected[v]);
    }
  }
}

describe.skipIf(!mysqlAvailable)("namespaces on MySQL: one binding, a database per tenant", () => {
  beforeAll(async () => {
    await onMysql(`
      DROP DATABASE IF EXISTS warehouse_tenant_a; DROP DATABASE IF EXISTS warehouse_tenant_b;
      CREATE DATABASE warehouse_tenant_a; CREATE DATABASE warehouse_tenant_b;
      CREATE TABLE warehouse_tenant_a.orders (tenant varchar(20), amount decimal(10,2));
      CREATE TABLE warehouse_tenant_b.orders (tenant varchar(20), amount decimal(10,2));
      INSERT INTO warehouse_tenant_a.orders VALUES ('a', 10), ('a', 20);
      INSERT INTO warehouse_tenant_b.orders VALUES ('b', 5), ('b', 6), ('b', 7);`);
  });

  it("two tenants rendered alternately many times never see each other's rows", async () => {
    const { viewers, embedId } = await tenants("WAREHOUSE_MYSQL", "mysql", ["warehouse_tenant_a", "warehouse_tenant_b"]);
    await alternate(
      embedId,
      viewers,
      [
        ["rows 2", "total 30", "owner a"],
        ["rows 3", "total 18", "owner b"],
      ],
      15,
    );
  });

  it("reads the new namespace right after update_data_source; a namespace the server lacks shows its message", async () => {
    const { viewers, embedId } = await tenants("WAREHOUSE_MYSQL", "mysql", ["warehouse_tenant_a", "warehouse_tenant_b"]);
    expect(panelText((await embed(embedId, viewers[0].token)).body, "owner")).toBe("owner a");
    await admin("POST", "/admin/update_data_source/", { id: viewers[0].source, namespace: "warehouse_tenant_b" });
    expect(panelText((await embed(embedId, viewers[0].token)).body, "owner")).toBe("owner b");
    await admin("POST", "/admin/update_data_source/", { id: viewers[0].source, namespace: "warehouse_no_such_tenant" });
    const missing = await embed(embedId, viewers[0].token);
    expect(missing.status).toBe(200);
    expect(panelText(missing.body, "rows")).toMatch(/The namespace .*warehouse_no_such_tenant.* of this data source does not exist/);
    // The other tenant is unaffected.
    expect(panelText((await embed(embedId, viewers[1].token)).body, "owner")).toBe("owner b");
  });
});

describe("namespaces on PostgreSQL: one binding, a schema per tenant", () => {
  beforeAll(async () => {
    await onWarehouse(`
      DROP SCHEMA IF EXISTS tenant_a CASCADE; DROP SCHEMA IF EXISTS tenant_b CASCADE;
      CREATE SCHEMA tenant_a; CREATE SCHEMA tenant_b;
      CREATE TABLE tenant_a.orders (tenant text, amount numeric);
      CREATE TABLE tenant_b.orders (tenant text, amount numeric);
      INSERT INTO tenant_a.orders VALUES ('a', 10), ('a', 20);
      INSERT INTO tenant_b.orders VALUES ('b', 5), ('b', 6), ('b', 7);`);
  });

  it("two tenants rendered alternately never see each other's rows; the search path is the transaction's only", async () => {
    const { viewers, embedId } = await tenants("WAREHOUSE", "postgres", ["tenant_a", "tenant_b"]);
    await alternate(
      embedId,
      viewers,
      [
        ["rows 2", "total 30", "owner a"],
        ["rows 3", "total 18", "owner b"],
      ],
      8,
    );
    // The control: without a namespace the binding's own search path has no orders table of these.
    const [path] = await onWarehouse<{ search_path: string }>("SHOW search_path");
    expect(path.search_path).not.toContain("tenant_");
  });
});
