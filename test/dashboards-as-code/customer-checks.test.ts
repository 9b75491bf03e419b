import { beforeAll, describe, expect, it } from "vitest";
import { roundTrips } from "../helpers/api";
import { admin, call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// POST /admin/dashboard_checks/ for many customers in one call (`provided_ids`, or `access_group`
// with `offset`/`limit`): what the console's "Check all customers" asks a page at a time.
let schema: number;
let group: string;
let write: string;
let parent: string; // mapped to DEMO_DATA
let child: string; // no mapping of its own: inherits its parent's
let unmapped: string;
let german: string; // locale de, mapped

const layout = (y: number) => ({ x: 0, y, w: 6, h: 3 });
const file = (sql = "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}") => ({
  embed_id: "many",
  name: "Many",
  definition: {
    title: "Many",
    panels: [
      { id: "intro", type: "text", text: "Hello", layout: layout(0) },
      { id: "revenue", type: "kpi", title: "Revenue", schema_id: schema, sql, layout: layout(1) },
    ],
    translations: { de: { title: "Viele", "panels.intro.text": "Hallo" } },
  },
});
const check = (body: unknown) => admin("POST", "/admin/dashboard_checks/", body);
/** What the one-customer check answers for `providedId`, without `success`. */
async function single(body: Record<string, unknown>, providedId: string) {
  const res = await check({ ...body, provided_id: providedId });
  expect(res.status).toBe(200);
  const { success: _, ...answer } = res.body;
  return answer;
}

beforeAll(async () => {
  await seedOrders();
  let demo: number;
  ({ schema, demo } = await sources());
  ({ group, write } = await workspace());
  const tag = unique("many");
  parent = (await createCustomer(write, { provided_id: `${tag}-a-parent`, mapping: { [schema]: demo } })).provided_id;
  child = (await createCustomer(write, { provided_id: `${tag}-b-child`, parent_provided_id: parent, hierarchy_level_name: "User" }))
    .provided_id;
  unmapped = (await createCustomer(write, { provided_id: `${tag}-c-plain` })).provided_id;
  german = (await createCustomer(write, { provided_id: `${tag}-d-de`, mapping: { [schema]: demo }, locale: "de" })).provided_id;
});

describe("POST /admin/dashboard_checks/ for many customers", () => {
  it("answers for each of provided_ids exactly what the one-customer check answers, in one D1 round trip", async () => {
    const body = { ...file(), customer_locale: true };
    const res = await check({ ...body, provided_ids: [unmapped, parent, german, child] });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
    expect(res.body.problems).toEqual([]);
    // By provided_id, each with its name.
    expect(res.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual([parent, child, unmapped, german]);
    for (const answer of res.body.customers) {
      const { provided_id, name, ...rest } = answer;
      expect(name).toBe(provided_id);
      expect(rest, provided_id).toEqual(await single(body, provided_id));
    }
    // What they found: the child prepared on its parent's source, the unmapped one without one, the German one's locale.
    const byId = Object.fromEntries(res.body.customers.map((c: any) => [c.provided_id, c]));
    expect(byId[child].panels).toEqual([{ id: "revenue", columns: ["value"] }]);
    expect(byId[unmapped].problems.map((p: { message: string }) => p.message)).toEqual([
      `customer '${unmapped}' has no data source for schema ${schema}`,
    ]);
    expect(byId[german].problems.map((p: { field: string }) => p.field)).toEqual(["definition.translations.de.panels.revenue.title"]);
    expect(roundTrips(res)).toBe(1);
    // Control: one customer costs the same one round trip: it does not grow with the customers.
    expect(roundTrips(await check({ ...body, provided_ids: [parent] }))).toBe(1);
  });

  it("pages through an access group's customers as GET /admin/customers/ orders them", async () => {
    const first = await check({ ...file(), access_group: group, limit: 3 });
    expect(first.status).toBe(200);
    expect(first.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual([parent, child, unmapped]);
    expect(first.body.total).toBe(4);
    expect(first.body.next_offset).toBe(3);
    expect(roundTrips(first)).toBe(1);
    const last = await check({ ...file(), access_group: group, offset: 3, limit: 3 });
    expect(last.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual([german]);
    expect(last.body.next_offset).toBeNull();
    const listed = await admin("GET", `/admin/customers/?access_group=${encodeURIComponent(group)}`);
    expect(listed.body.customers.map((c: { provided_id: string }) => c.provided_id)).toEqual([parent, child, unmapped, german]);
    // Past the end: no customers, still the total.
    const past = await check({ ...file(), access_group: group, offset: 10 });
    expect(past.body).toMatchObject({ customers: [], total: 4, next_offset: null });
  });

  it("answers a file's own problems for every customer, as the one-customer check does", async () => {
    const broken = file("DELETE FROM orders");
    const res = await check({ ...broken, provided_ids: [parent, unmapped] });
    expect(res.body.valid).toBe(false);
    expect(res.body.problems.map((p: { field: string }) => p.field)).toEqual(["definition.panels.1.sql"]);
    for (const { provided_id, name: _, ...rest } of res.body.customers) expect(rest).toEqual(await single(broken, provided_id));
  });

  it("refuses an unknown customer (404 on provided_ids.N) or access group (404 access_group_not_found); control: the known ones pass", async () => {
    const unknown = await check({ ...file(), provided_ids: [parent, "nobody-here"] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "customer_not_found", field: "provided_ids.1" });
    expect((await check({ ...file(), provided_ids: [parent] })).status).toBe(200);
    const noGroup = await check({ ...file(), access_group: unique("no-such-group") });
    expect(noGroup.status).toBe(404);
    expect(noGroup.body.error).toMatchObject({ code: "access_group_not_found", field: "access_group" });
  });

  it("refuses more than one way of naming customers, paging without an access group, over 100 customers, and a non-admin", async () => {
    const refused = async (extra: Record<string, unknown>, field: string) => {
      const res = await check({ ...file(), ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error.field).toBe(field);
    };
    await refused({ provided_id: parent, provided_ids: [parent] }, "provided_ids");
    await refused({ provided_ids: [parent], access_group: group }, "access_group");
    await refused({ provided_ids: [parent], limit: 5 }, "limit");
    await refused({ access_group: group, limit: 101 }, "limit");
    await refused({ provided_ids: Array.from({ length: 101 }, (_, i) => `c${i}`) }, "provided_ids");
    await refused({ provided_ids: [] }, "provided_ids");
    const token = await call("POST", "/admin/dashboard_checks/", { token: write, body: { ...file(), provided_ids: [parent] } });
    expect(token.status).toBe(401);
    // Control: the admin's same call with a limit of 100 passes.
    expect((await check({ ...file(), access_group: group, limit: 100 })).status).toBe(200);
  });

  it("is documented in /openapi.json: the ways of naming customers and the per-customer answer", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    const { DashboardCheckRequest } = document.components.schemas;
    for (const field of ["provided_id", "provided_ids", "access_group", "offset", "limit"])
      expect(Object.keys(DashboardCheckRequest.properties)).toContain(field);
    const answer = document.paths["/admin/dashboard_checks/"].post.responses["200"].content["application/json"].schema;
    expect(JSON.stringify(answer)).toContain("next_offset");
  });
});
