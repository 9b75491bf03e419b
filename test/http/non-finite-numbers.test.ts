import { describe, expect, it } from "vitest";
import { nonFiniteNumberPath } from "../../src/http/json-body";
import { admin, call, createCustomer, dashboard, kpi, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// A JSON number too large for a double (1e400 parses to Infinity) is refused with 400
// validation_error on its field by the body reading every route shares, before anything is
// stored; JSON.stringify would have stored it as null. Each refusal has a passing control:
// the same request with a number that fits.

const json = { "Content-Type": "application/json" };
/** The body as text, with `NUMBER` standing for the number under test (JSON.stringify cannot write 1e400). */
const raw = (body: unknown, number: string) => JSON.stringify(body).replace('"NUMBER"', number);

describe("a non-finite number anywhere in a request body", () => {
  it("names the first such field in document order, however deep; finite numbers and text pass", () => {
    expect(nonFiniteNumberPath(JSON.parse('{"a":1,"b":[0,{"c":1e400}],"d":-1e400}'))).toBe("b.1.c");
    expect(nonFiniteNumberPath(JSON.parse('{"a":-1e400}'))).toBe("a");
    expect(nonFiniteNumberPath(JSON.parse('{"a":1e308,"b":"1e400","c":1e-400,"d":[null,true]}'))).toBeNull();
    const deep = JSON.parse(`${'{"x":['.repeat(20_000)}1e999${"]}".repeat(20_000)}`);
    expect(nonFiniteNumberPath(deep)?.split(".").length).toBe(40_000);
  });

  it("refuses a number written out in 310 digits (1e309) with no exponent, and passes long digit runs that fit", async () => {
    const { write } = await workspace();
    const providedId = unique("digits");
    const body = (number: string) => `{"provided_id":"${providedId}","properties":{"big":${number}}}`;
    const refused = await call("POST", "/api/create_customer/", { token: write, headers: json, rawBody: body(`1${"0".repeat(309)}`) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "properties.big" });
    expect((await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).status).toBe(404);
    // Control: 1e308 written out (309 digits) fits a double.
    const stored = await call("POST", "/api/create_customer/", { token: write, headers: json, rawBody: body(`1${"0".repeat(308)}`) });
    expect(stored.status).toBe(200);
  });

  it("refuses a dashboard variable's default (400 on definition.variables.0.default) and saves no version", async () => {
    const { schema } = await sources();
    const definition = { variables: [{ name: "limit", default: "NUMBER" }], panels: [kpi("a", schema, "SELECT 1 AS value")] };
    const embedId = await dashboard({ panels: [kpi("a", schema, "SELECT 1 AS value")] });
    for (const number of ["1e400", "-1e400"]) {
      const res = await call("POST", "/admin/dashboard_versions/", {
        admin: true,
        headers: json,
        rawBody: raw({ embed_id: embedId, definition, draft: true }, number),
      });
      expect(res.status, number).toBe(400);
      expect(res.body.error, number).toMatchObject({ code: "validation_error", field: "definition.variables.0.default" });
    }
    expect((await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`)).body.version.version_number).toBe(1);
    // Control: a default that fits is saved as written.
    const saved = await call("POST", "/admin/dashboard_versions/", {
      admin: true,
      headers: json,
      rawBody: raw({ embed_id: embedId, definition, draft: true }, "1e300"),
    });
    expect(saved.status).toBe(200);
    const newest = await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`);
    expect(newest.body.version).toMatchObject({ version_number: 2, definition: { variables: [{ name: "limit", default: 1e300 }] } });
  });

  it("refuses a customer property and a mapping (400 on the field) and changes no customer", async () => {
    const { write } = await workspace();
    const { schema, demo } = await sources();
    const providedId = unique("finite");
    const created = await call("POST", "/api/create_customer/", {
      token: write,
      headers: json,
      rawBody: raw({ provided_id: providedId, properties: { seats: "NUMBER" } }, "1e400"),
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: "validation_error", field: "properties.seats" });
    expect((await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).status).toBe(404);

    await createCustomer(write, { provided_id: providedId, properties: { seats: 5 }, mapping: { [schema]: demo } });
    const before = (await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).body.customer;
    const cases: [unknown, string][] = [
      [{ provided_id: providedId, properties: { seats: "NUMBER" } }, "properties.seats"],
      [{ provided_id: providedId, mapping: { [schema]: "NUMBER" } }, `mapping.${schema}`],
    ];
    for (const [body, field] of cases) {
      for (const number of ["1e400", "-1e400"]) {
        const res = await call("POST", "/api/update_customer/", { token: write, headers: json, rawBody: raw(body, number) });
        expect(res.status, field).toBe(400);
        expect(res.body.error, field).toMatchObject({ code: "validation_error", field });
      }
    }
    const after = (await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).body.customer;
    expect(after).toEqual(before);
    // Controls: a property and a mapping that fit are stored.
    const property = await call("POST", "/api/update_customer/", {
      token: write,
      headers: json,
      rawBody: raw({ provided_id: providedId, properties: { seats: "NUMBER" } }, "1e300"),
    });
    expect(property.status).toBe(200);
    const mapping = await call("POST", "/api/update_customer/", {
      token: write,
      headers: json,
      rawBody: raw({ provided_id: providedId, mapping: { [schema]: "NUMBER" } }, String(demo)),
    });
    expect(mapping.status).toBe(200);
    const changed = (await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).body.customer;
    expect(changed.properties).toEqual({ seats: 1e300 });
  });

  it("refuses a report builder filter value (400 on query.filters.0.value) and saves no report", async () => {
    await seedOrders();
    const { write } = await workspace();
    const { schema, demo } = await sources();
    const customer = unique("finite-builder");
    await createCustomer(write, { provided_id: customer, mapping: { [schema]: demo } });
    const blueprint = await call("POST", "/api/create_blueprint/", {
      token: write,
      body: {
        customer_id: customer,
        blueprint_name: "Sales",
        tables: [{ table_name: "orders", schema_id: schema, columns: [{ name: "amount", type: "FLOAT" }] }],
      },
    });
    expect(blueprint.status).toBe(200);
    const blueprintId = blueprint.body.blueprint_id ?? blueprint.body.blueprint?.id ?? blueprint.body.id;
    const got = await call("POST", "/api/get_blueprint/", { token: write, body: { blueprint_id: blueprintId } });
    const embedId = got.body.blueprint.embed_id as string;
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: customer, blueprint_id: blueprintId },
    });
    const builder = { Authorization: `Bearer ${minted.body.token}`, ...json };
    const query = { dataset: "orders", values: [{ aggregate: "count" }], filters: [{ column: "amount", op: "gte", value: "NUMBER" }] };
    const save = (number: string) =>
      call("POST", `/report-builder/${embedId}/reports`, {
        headers: builder,
        rawBody: raw({ name: "Big", query, chart: { type: "table" } }, number),
      });
    for (const number of ["1e400", "-1e400"]) {
      const run = await call("POST", `/report-builder/${embedId}/query`, { headers: builder, rawBody: raw(query, number) });
      expect(run.status, number).toBe(400);
      expect(run.body.error, number).toMatchObject({ code: "validation_error", field: "filters.0.value" });
      const saved = await save(number);
      expect(saved.status, number).toBe(400);
      expect(saved.body.error, number).toMatchObject({ code: "validation_error", field: "query.filters.0.value" });
    }
    expect((await call("GET", `/report-builder/${embedId}/reports`, { headers: builder })).body.reports).toEqual([]);
    // Controls: a value that fits runs and is saved.
    expect((await call("POST", `/report-builder/${embedId}/query`, { headers: builder, rawBody: raw(query, "1e300") })).status).toBe(200);
    expect((await save("1e300")).status).toBe(200);
    expect((await call("GET", `/report-builder/${embedId}/reports`, { headers: builder })).body.reports).toHaveLength(1);
  });
});
