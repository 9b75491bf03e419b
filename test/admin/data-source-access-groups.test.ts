import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, embed, kpi, panelText, seedOrders } from "../helpers/dashboards";

// Data sources belong to access groups (docs/api-contract.md, "Administration"): the admin API says which groups
// may use one; customers of other groups cannot be mapped to it, and a mapping made before a
// restriction acts exactly like no mapping on every path that runs queries.

let a: Awaited<ReturnType<typeof workspace>>;
let b: Awaited<ReturnType<typeof workspace>>;
let schema: number;

beforeAll(async () => {
  await seedOrders();
  a = await workspace();
  b = await workspace();
  schema = (await admin("POST", "/admin/schemas/", { name: unique("sales") })).body.schema.id as number;
});

const createSource = (body: Record<string, unknown>) =>
  admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA", ...body });
const sourceCount = async () => (await admin("GET", "/admin/data_sources/")).body.data_sources.length as number;

describe("POST /admin/data_sources/ with access_groups", () => {
  it("answers access_groups: null when absent (every access group, as before)", async () => {
    const res = await createSource({});
    expect(res.status).toBe(200);
    expect(res.body.data_source).toMatchObject({ binding: "DEMO_DATA", kind: "d1", access_groups: null });
  });

  it("stores the access groups named (any case) and answers their names", async () => {
    const res = await createSource({ access_groups: [a.group.toUpperCase(), a.group] });
    expect(res.status).toBe(200);
    expect(res.body.data_source.access_groups).toEqual([a.group]);
    const listed = (await admin("GET", "/admin/data_sources/")).body.data_sources.find(
      (s: { id: number }) => s.id === res.body.data_source.id,
    );
    expect(listed.access_groups).toEqual([a.group]);
  });

  it("refuses an unknown access group (404 access_group_not_found) and creates nothing", async () => {
    const before = await sourceCount();
    const res = await createSource({ access_groups: [a.group, "no-such-group"] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "access_group_not_found", field: "access_groups.1" });
    expect(await sourceCount()).toBe(before);
  });
});

describe("POST /admin/update_data_source/", () => {
  it("sets, widens and resets (null) the access groups", async () => {
    const id = (await createSource({})).body.data_source.id as number;
    const one = await admin("POST", "/admin/update_data_source/", { id, access_groups: [b.group] });
    expect(one.status).toBe(200);
    expect(one.body.data_source).toMatchObject({ id, access_groups: [b.group] });
    const two = await admin("POST", "/admin/update_data_source", { id, access_groups: [a.group, b.group] });
    expect([...two.body.data_source.access_groups].sort()).toEqual([a.group, b.group].sort());
    const all = await admin("POST", "/admin/update_data_source/", { id, access_groups: null });
    expect(all.body.data_source.access_groups).toBeNull();
  });

  it("refuses an unknown access group (404) and changes nothing", async () => {
    const id = (await createSource({ access_groups: [a.group] })).body.data_source.id as number;
    const res = await admin("POST", "/admin/update_data_source/", { id, access_groups: ["nobody-here"] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "access_group_not_found", field: "access_groups.0" });
    const listed = (await admin("GET", "/admin/data_sources/")).body.data_sources.find((s: { id: number }) => s.id === id);
    expect(listed.access_groups).toEqual([a.group]);
  });

  it("refuses an unknown data source (404 data_source_not_found) and a missing access_groups (400)", async () => {
    const unknown = await admin("POST", "/admin/update_data_source/", { id: 987654, access_groups: null });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "data_source_not_found", field: "id" });
    const id = (await createSource({})).body.data_source.id as number;
    const missing = await admin("POST", "/admin/update_data_source/", { id });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "validation_error", field: "access_groups" });
  });
});

describe("mapping a customer to a data source of another access group", () => {
  it("answers 422 unknown_data_source (by id and by provided_id); the own group's customer maps fine", async () => {
    const providedId = unique("only-a");
    const id = (await createSource({ provided_id: providedId, access_groups: [a.group] })).body.data_source.id as number;

    const control = await call("POST", "/api/create_customer/", {
      token: a.write,
      body: { provided_id: unique("a-customer"), mapping: { [schema]: id } },
    });
    expect(control.status).toBe(200);
    expect(control.body.customer.parent_schema_datasource_mapping).toEqual({ [schema]: String(id) });

    for (const reference of [id, String(id), providedId]) {
      const customerId = unique("b-customer");
      const refused = await call("POST", "/api/create_customer/", {
        token: b.write,
        body: { provided_id: customerId, mapping: { [schema]: reference } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: "unknown_data_source", field: `mapping.${schema}` });
      expect((await call("POST", "/api/get_customer/", { token: b.write, body: { provided_id: customerId } })).status).toBe(404);
    }
    const existing = await createCustomer(b.write, { provided_id: unique("b-existing") });
    const update = await call("POST", "/api/update_customer/", {
      token: b.write,
      body: { provided_id: existing.provided_id, mapping: { [schema]: id } },
    });
    expect(update.status).toBe(422);
    expect(update.body.error.code).toBe("unknown_data_source");
    const after = await call("POST", "/api/get_customer/", { token: b.write, body: { provided_id: existing.provided_id } });
    expect(after.body.customer.parent_schema_datasource_mapping).toBeNull();
  });

  it("acts like no mapping on the page and in the CSV once the data source is restricted to another group", async () => {
    const id = (await createSource({})).body.data_source.id as number;
    const mapped = await createCustomer(b.write, { provided_id: `alpha-${unique("b")}`, mapping: { [schema]: id } });
    const unmapped = await createCustomer(b.write, { provided_id: unique("b-unmapped") });
    const embedId = await dashboard({ panels: [kpi("orders", schema, "SELECT COUNT(*) AS value FROM orders")] });
    const csv = (token: string) => call("GET", `/embed/${embedId}/panels/orders.csv?customer_token=${token}`);

    // Before the restriction: the mapped customer sees data (the control).
    expect(panelText((await embed(embedId, mapped.token)).body, "orders")).toBe("orders 4");
    expect((await csv(mapped.token)).status).toBe(200);

    const restricted = await admin("POST", "/admin/update_data_source/", { id, access_groups: [a.group] });
    expect(restricted.status).toBe(200);

    const page = await embed(embedId, mapped.token);
    const none = await embed(embedId, unmapped.token);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "orders")).toBe(panelText(none.body, "orders"));
    expect(panelText(page.body, "orders")).not.toContain("4");
    const refusedCsv = await csv(mapped.token);
    const noneCsv = await csv(unmapped.token);
    expect(refusedCsv.status).toBe(noneCsv.status);
    expect(refusedCsv.body.error.code).toBe(noneCsv.body.error.code);
    expect(refusedCsv.body.error.message).toBe(noneCsv.body.error.message);

    // A customer of the allowed group, mapped to it, still sees its data.
    const allowed = await createCustomer(a.write, { provided_id: unique("a-allowed"), mapping: { [schema]: id } });
    expect(panelText((await embed(embedId, allowed.token)).body, "orders")).toBe("orders 4");

    // Reset to every access group: the old mapping works again.
    await admin("POST", "/admin/update_data_source/", { id, access_groups: null });
    expect(panelText((await embed(embedId, mapped.token)).body, "orders")).toBe("orders 4");
  });
});

describe("report-builder queries on a data source of another access group", () => {
  it("answer exactly as for a customer without a mapping once the source is restricted", async () => {
    const id = (await createSource({})).body.data_source.id as number;
    const blueprintFor = async (providedId: string) => {
      const created = await call("POST", "/api/create_blueprint/", {
        token: b.write,
        body: {
          customer_id: providedId,
          blueprint_name: "Orders",
          tables: [{ table_name: "orders", schema_id: schema, columns: [{ name: "amount", type: "FLOAT" }] }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const got = await call("POST", "/api/get_blueprint/", { token: b.write, body: { blueprint_id: created.body.blueprint_id } });
      const minted = await call("POST", "/api/generate_embed_token/", {
        token: b.write,
        body: { provided_id: providedId, blueprint_id: created.body.blueprint_id },
      });
      expect(minted.status, JSON.stringify(minted.body)).toBe(200);
      const token = minted.body.token as string;
      return () =>
        call("POST", `/report-builder/${got.body.blueprint.embed_id}/query`, {
          headers: { Authorization: `Bearer ${token}` },
          body: { dataset: "orders", values: [{ aggregate: "sum", column: "amount" }] },
        });
    };
    const mapped = await createCustomer(b.write, { provided_id: unique("b-builder"), mapping: { [schema]: id } });
    const unmapped = await createCustomer(b.write, { provided_id: unique("b-builder-none") });
    const queryMapped = await blueprintFor(mapped.provided_id);
    const queryUnmapped = await blueprintFor(unmapped.provided_id);

    const before = await queryMapped();
    expect(before.status, JSON.stringify(before.body)).toBe(200);

    await admin("POST", "/admin/update_data_source/", { id, access_groups: [a.group] });
    const after = await queryMapped();
    const none = await queryUnmapped();
    expect(none.status).toBe(422);
    expect(after.status).toBe(none.status);
    expect(after.body.error.code).toBe(none.body.error.code);
    expect(after.body.error.message).toBe(none.body.error.message);
  });
});
