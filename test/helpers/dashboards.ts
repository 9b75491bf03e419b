import { env } from "cloudflare:test";
import { admin, call, createCustomer, unique, workspace } from "./api";

export const bindings = env as unknown as { DB: D1Database; DEMO_DATA: D1Database; OTHER_DATA: D1Database };

/** Orders for two customers in DEMO_DATA, and different orders in OTHER_DATA. */
export async function seedOrders(): Promise<void> {
  const schema = "CREATE TABLE IF NOT EXISTS orders (customer_id TEXT, day TEXT, month TEXT, product TEXT, amount REAL, region TEXT)";
  await bindings.DEMO_DATA.prepare(schema).run();
  await bindings.OTHER_DATA.prepare(schema).run();
  await bindings.DEMO_DATA.batch([
    bindings.DEMO_DATA.prepare("DELETE FROM orders"),
    bindings.DEMO_DATA.prepare(
      `INSERT INTO orders VALUES ('alpha','2026-01-05','2026-01','Seats',100,'EU'),('alpha','2026-02-05','2026-02','Storage',250,'EU'),
       ('beta','2026-01-07','2026-01','Seats',7,'US'),('beta','2026-03-01','2026-03','Support',3,'US')`,
    ),
  ]);
  await bindings.OTHER_DATA.batch([
    bindings.OTHER_DATA.prepare("DELETE FROM orders"),
    bindings.OTHER_DATA.prepare(`INSERT INTO orders VALUES ('alpha-child','2026-01-01','2026-01','Seats',9000,'EU')`),
  ]);
}

/** A schema and a data source per binding, registered through the admin API. */
export async function sources() {
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("sales") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  const other = (await admin("POST", "/admin/data_sources/", { name: "Other", binding: "OTHER_DATA" })).body.data_source.id as number;
  return { schema, demo, other };
}

export function kpi(id: string, schema: number, sql: string, x = 0, y = 0) {
  return { id, type: "kpi", title: id, schema_id: schema, sql, layout: { x, y, w: 3, h: 2 } };
}

export async function dashboard(definition: unknown, tags: string[] = [], embedId = unique("dash")) {
  const created = await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Test dashboard" });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const version = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition });
  if (version.status !== 200) throw new Error(JSON.stringify(version.body));
  for (const tag of tags)
    await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag, version_number: version.body.version.version_number });
  return embedId;
}

export async function embed(embedId: string, token: string, query = "") {
  return call("GET", `/embed/${embedId}?customer_token=${token}${query}`);
}

/** The text of a KPI panel's value (or its message). */
export function panelText(html: string, panelId: string): string {
  const marker = `data-panel-id="${panelId}">`;
  const at = html.indexOf(marker);
  if (at < 0) throw new Error(`panel ${panelId} not in page`);
  const start = at + marker.length;
  const end = html.indexOf("</section>", start);
  // The panel's CSV link is not part of its content.
  const content = html.slice(start, end).replace(/<a class="csv"[^>]*>CSV<\/a>/g, "");
  return content
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export { admin, call, createCustomer, unique, workspace };
