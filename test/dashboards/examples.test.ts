import { describe, expect, it } from "vitest";
import monthOrders from "../../examples/dashboards/month-orders.json";
import monthly from "../../examples/dashboards/monthly-report.json";
import sales from "../../examples/dashboards/sales.json";
import { demoDataSql } from "../../scripts/lib/seed.mjs";
import { admin, bindings, createCustomer, embed, workspace } from "../helpers/dashboards";

describe("the demo dashboards of examples/dashboards", () => {
  it("pass validation and render every panel with the demo data", async () => {
    await bindings.DEMO_DATA.exec(demoDataSql().replace(/\n(?!INSERT|CREATE|DELETE)/g, " "));
    const { write } = await workspace();
    const schema = (await admin("POST", "/admin/schemas/", { name: "sales" })).body.schema.id;
    const source = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA", provided_id: "demo" })).body
      .data_source.id;
    expect(schema).toBe(1);
    await createCustomer(write, {
      provided_id: "acme",
      properties: { currency: "EUR", region: "EU", plan: "enterprise" },
      mapping: { 1: source },
    });
    const viewer = await createCustomer(write, { provided_id: "acme-berlin", parent_provided_id: "acme", hierarchy_level_name: "User" });

    // month-orders first: the sales dashboard's monthly bars open it (it must exist when sales is saved).
    for (const file of [monthOrders, sales, monthly] as { embed_id: string; name: string; definition: any }[]) {
      await admin("POST", "/admin/dashboards/", { embed_id: file.embed_id, name: file.name });
      const version = await admin("POST", "/admin/dashboard_versions/", { embed_id: file.embed_id, definition: file.definition });
      expect(version.status, JSON.stringify(version.body)).toBe(200);
      for (const tag of ["production", "email"]) {
        await admin("POST", "/admin/dashboard_tags/", {
          embed_id: file.embed_id,
          tag,
          version_number: version.body.version.version_number,
        });
      }
      const res = await embed(file.embed_id, viewer.token, "&environment=production");
      expect(res.status).toBe(200);
      const html: string = res.body;
      expect(html).not.toContain('class="message');
      const charts = file.definition.panels.filter((p: { type: string }) => ["bar", "line", "area", "pie"].includes(p.type)).length;
      expect(html.match(/<svg class="chart"/g)?.length).toBe(charts);
      expect(html).toContain("€"); // currency inherited from the parent's properties
    }
  });
});
