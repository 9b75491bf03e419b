import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dashboard, kpi, sources } from "../../helpers/dashboards";
import { admin, call, createCustomer, getCustomer, schemaAndSource, unique, workspace } from "../../helpers/api";

// JSON columns are typed in src/db/schema/ (drizzle's json mode): what they store must stay
// the very text the services wrote by hand before, so rows from before read back unchanged.
const DB = (env as unknown as { DB: D1Database }).DB;

const stored = (table: string, columns: string, where: string, value: unknown) =>
  DB.prepare(`SELECT ${columns} FROM ${table} WHERE ${where} = ?`).bind(value).first<Record<string, string | null>>();

describe("JSON columns keep the text written before they were typed", () => {
  it("stores a customer's emails, properties and mapping as JSON.stringify of them; null as NULL", async () => {
    const { write } = await workspace();
    const { schemaId, dataSourceId } = await schemaAndSource();
    const providedId = unique("json");
    const properties = { z: 1, a: { b: [1, "x", null] }, é: "ü\u2028", n: 1.5 };
    await createCustomer(write, { provided_id: providedId, emails: ["a@example.com"], properties, mapping: { [schemaId]: dataSourceId } });
    expect(await stored("customers", "emails, properties, mapping", "provided_id", providedId)).toEqual({
      emails: JSON.stringify(["a@example.com"]),
      properties: JSON.stringify(properties),
      mapping: JSON.stringify({ [String(schemaId)]: String(dataSourceId) }),
    });
    const cleared = await call("POST", "/api/update_customer/", {
      token: write,
      body: { provided_id: providedId, properties: null, mapping: null },
    });
    expect(cleared.status).toBe(200);
    expect(
      await DB.prepare("SELECT properties IS NULL AS p, mapping IS NULL AS m FROM customers WHERE provided_id = ?")
        .bind(providedId)
        .first(),
    ).toEqual({ p: 1, m: 1 });
  });

  it("reads a customer row whose JSON text was written by hand, as rows from before are", async () => {
    const { write } = await workspace();
    const providedId = unique("legacy");
    await createCustomer(write, { provided_id: providedId });
    await DB.prepare(
      `UPDATE customers SET emails = '["old@example.com"]', properties = '{"legacy":true,"list":[1,2]}' WHERE provided_id = ?`,
    )
      .bind(providedId)
      .run();
    const res = await getCustomer(write, providedId);
    expect(res.status).toBe(200);
    expect(res.body.customer).toMatchObject({
      emails: ["old@example.com"],
      properties: { legacy: true, list: [1, 2] },
      computed_properties: { legacy: true, list: [1, 2] },
    });
  });

  it("stores a dashboard definition as JSON.stringify of the definition read back, and reads one written by hand", async () => {
    const embedId = unique("dash");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Typed" });
    const definition = {
      title: "T",
      variables: [],
      panels: [{ id: "t", type: "text", title: "Text", text: "Hello", layout: { x: 0, y: 0, w: 12, h: 2 } }],
    };
    expect((await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition })).status).toBe(200);
    const got = await call("GET", `/admin/dashboard_versions/?embed_id=${embedId}`, { admin: true });
    const row = await DB.prepare(
      "SELECT v.definition FROM dashboard_versions v JOIN dashboards d ON d.id = v.dashboard_id WHERE d.embed_id = ?",
    )
      .bind(embedId)
      .first<{ definition: string }>();
    expect(row?.definition).toBe(JSON.stringify(got.body.version.definition));

    const handWritten = '{"variables":[],"panels":[{"id":"h","type":"text","text":"By hand","layout":{"x":0,"y":0,"w":6,"h":1}}]}';
    await DB.prepare(
      "INSERT INTO dashboard_versions (dashboard_id, version_number, definition, draft) SELECT id, 2, ?, 0 FROM dashboards WHERE embed_id = ?",
    )
      .bind(handWritten, embedId)
      .run();
    const second = await call("GET", `/admin/dashboard_versions/?embed_id=${embedId}&version_number=2`, { admin: true });
    expect(second.body.version.definition).toEqual(JSON.parse(handWritten));
  });

  it("stores a data source's access groups as a JSON array of ids", async () => {
    const a = await workspace();
    const res = await admin("POST", "/admin/data_sources/", { name: "Restricted", binding: "DEMO_DATA", access_groups: [a.group] });
    expect(res.status).toBe(200);
    const group = await DB.prepare("SELECT id FROM access_groups WHERE name = ?").bind(a.group).first<{ id: number }>();
    expect(await stored("data_sources", "access_group_ids", "id", res.body.data_source.id)).toEqual({
      access_group_ids: JSON.stringify([group?.id]),
    });
  });

  it("stores a legacy end user's attributes as JSON.stringify of them and answers that very text", async () => {
    const { write } = await workspace();
    const group = await call("POST", "/api/create_user_group/", { token: write, body: { user_group_id: unique("eu-group") } });
    const attributes = { header: "<b>Hi</b>", nested: { list: [1, 2.5, "x"] }, ü: null };
    const res = await call("POST", "/api/create_end_user/", {
      token: write,
      body: { provided_id: "u", email: "u@x.example", customer_id: group.body.user_group.team_id, attributes },
    });
    expect(res.status).toBe(200);
    const row = await DB.prepare("SELECT attributes FROM end_users WHERE provided_id = 'u' AND email = 'u@x.example'").first<{
      attributes: string;
    }>();
    expect(row?.attributes).toBe(JSON.stringify(attributes));
    expect(res.body.end_user.attributes).toBe(JSON.stringify(attributes));
  });

  it("stores a schedule's recipients and variables as JSON.stringify of them; no variables as NULL", async () => {
    const { write } = await workspace();
    const { schema } = await sources();
    const customer = await createCustomer(write, { provided_id: unique("sched") });
    const embedId = await dashboard({ panels: [kpi("total", schema, "SELECT 1 AS value")] }, ["production"]);
    const recipients = ["a@example.com", "B@example.com"];
    const variables = { region: "EU", since: { from: "2026-01-01" } };
    const base = { dashboard_embed_id: embedId, provided_id: customer.provided_id, cron: "0 9 * * 1-5" };
    const res = await call("POST", "/api/create_report_schedule/", { token: write, body: { ...base, recipients, variables } });
    expect(res.status).toBe(200);
    const id = res.body.schedule.id;
    expect(await stored("report_schedules", "recipients, variables", "id", id)).toEqual({
      recipients: JSON.stringify(recipients),
      variables: JSON.stringify(variables),
    });
    const bare = await call("POST", "/api/create_report_schedule/", { token: write, body: base });
    expect(await stored("report_schedules", "recipients, variables", "id", bare.body.schedule.id)).toEqual({
      recipients: "[]",
      variables: null,
    });
  });
});
