import { beforeAll, describe, expect, it } from "vitest";
import { controlsDashboard, embedPage, formFields, type ControlsDashboard } from "./controls-fixture";
import { admin, bindings, call, dashboard, kpi, panelText } from "../helpers/dashboards";

// Filter controls on the embed page (docs/embedding.md, "Filter controls").
let ctx: ControlsDashboard["ctx"];
let alpha: ControlsDashboard["alpha"];
let embedId: string;

beforeAll(async () => {
  ({ ctx, alpha, embedId } = await controlsDashboard());
});

const page = (query: string) => embedPage(embedId, query);

describe("filter controls", () => {
  it("show a GET form whose fields and values reflect the variables", async () => {
    const res = await page(`customer_token=${alpha.token}&var_since=2026-02-01&var_note=kept&width=900`);
    const html: string = res.body;
    expect(html).toMatch(new RegExp(`<form class="controls" method="get" action="/embed/${embedId}">`));
    // A date: shown in the locale's format (en-US here), the ISO date in the hidden field the form submits.
    expect(html).toContain('<input type="text" id="var_since" value="02/01/2026" data-date-of="var_since" placeholder="MM/DD/YYYY"');
    expect(html).toContain('<input type="hidden" name="var_since" value="2026-02-01">');
    expect(html).toContain('<option value="All" selected>All</option>');
    expect(html).toContain("<span>From day</span>");
    const fields = formFields(html);
    // The credential, the width and variables without a control ride along as hidden fields.
    expect(fields).toEqual({ customer_token: alpha.token, var_note: "kept", width: "900", var_since: "2026-02-01", var_product: "All" });
    expect(html).not.toContain('name="var_note" id=');
  });

  it("submitting the form shows the new data (the form's GET is the page with new var_ fields)", async () => {
    const before = await page(`customer_token=${alpha.token}`);
    expect(panelText(before.body, "since")).toContain("350");
    const fields = { ...formFields(before.body), var_since: "2026-02-01", var_product: "Storage" };
    const after = await page(new URLSearchParams(fields).toString());
    expect(panelText(after.body, "since")).toContain("250");
    expect(panelText(after.body, "rows")).toContain("Storage");
    expect(panelText(after.body, "rows")).not.toContain("Seats");
    expect(formFields(after.body)).toMatchObject({ var_since: "2026-02-01", var_product: "Storage" });
  });

  it("show no control for variables a signed token locks, and neither form nor URL changes them", async () => {
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: "alpha", dashboard_embed_id: embedId, variables: { since: "2026-02-01" } },
    });
    const res = await page(`token=${minted.body.token}&var_since=2026-01-01`);
    expect(res.body).not.toContain('name="var_since"');
    expect(res.body).toContain('name="var_product"');
    expect(formFields(res.body).token).toBe(minted.body.token);
    expect(panelText(res.body, "since")).toContain("250");
  });

  it("are refused on save when a select has no options or the type is unknown (400, nothing saved)", async () => {
    const id = await dashboard({ panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] });
    for (const [control, field] of [
      [{ type: "select" }, "definition.variables.0.control.options"],
      [{ type: "slider" }, "definition.variables.0.control.type"],
      [{ type: "select", options: [] }, "definition.variables.0.control.options"],
    ] as const) {
      const res = await admin("POST", "/admin/dashboard_versions/", {
        embed_id: id,
        definition: { variables: [{ name: "v", control }], panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field });
    }
    const versions = await bindings.DB.prepare(
      "SELECT COUNT(*) AS n FROM dashboard_versions v JOIN dashboards d ON d.id = v.dashboard_id WHERE d.embed_id = ?",
    )
      .bind(id)
      .first<{ n: number }>();
    expect(versions?.n).toBe(1);
  });
});
