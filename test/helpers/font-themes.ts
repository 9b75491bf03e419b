import { expect } from "vitest";
import monthOrders from "../../examples/dashboards/month-orders.json";
import sales from "../../examples/dashboards/sales.json";
import { demoDataSql } from "../../scripts/lib/seed.mjs";
import { admin, bindings, call, createCustomer, workspace } from "./dashboards";

// The demo dashboards for acme-berlin with three themes that differ only in their font family:
// a plain one (the control), one with quotes (the demo theme's kind) and a hostile one. The
// chart-attribute tests draw the same page in each.

export const PLAIN = "system-ui, sans-serif";
export const QUOTED = `"Acme Sans", 'Other', sans-serif`;
export const HOSTILE = `x" autofocus onfocus y' z`;

/** Seeds the workspace; answers the write token and acme-berlin's customer token. */
export async function demoWithFontThemes(): Promise<{ write: string; customer: { token: string } }> {
  await bindings.DEMO_DATA.exec(demoDataSql().replace(/\n(?!INSERT|CREATE|DELETE)/g, " "));
  const { write } = await workspace();
  await admin("POST", "/admin/schemas/", { name: "sales" });
  const source = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA", provided_id: "demo" })).body.data_source
    .id;
  await createCustomer(write, {
    provided_id: "acme",
    properties: { currency: "EUR", region: "EU", plan: "enterprise" },
    mapping: { 1: source },
  });
  const customer = await createCustomer(write, { provided_id: "acme-berlin", parent_provided_id: "acme", hierarchy_level_name: "User" });
  for (const file of [monthOrders, sales] as { embed_id: string; name: string; definition: unknown }[]) {
    await admin("POST", "/admin/dashboards/", { embed_id: file.embed_id, name: file.name });
    const version = await admin("POST", "/admin/dashboard_versions/", { embed_id: file.embed_id, definition: file.definition });
    expect(version.status, JSON.stringify(version.body)).toBe(200);
  }
  for (const [name, font_family] of [
    ["Plain", PLAIN],
    ["Quoted", QUOTED],
    ["Hostile", HOSTILE],
  ]) {
    const theme = await call("POST", "/api/create_theme/", { token: write, body: { name, theme: { font_family } } });
    expect(theme.status, JSON.stringify(theme.body)).toBe(200);
  }
  return { write, customer };
}
