import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, dashboard, kpi, panelText, sources } from "../helpers/dashboards";
import { workspace } from "../helpers/api";

// This project runs with EMBED_REQUIRE_SIGNED=true (vitest.config.mts).
let ctx: { write: string; embedId: string; customer: { provided_id: string; token: string } };

beforeAll(async () => {
  const { write } = await workspace();
  const { schema, demo } = await sources();
  const customer = await createCustomer(write, { provided_id: "signed-only", is_demo_group: true, mapping: { [schema]: demo } });
  const embedId = await dashboard({ panels: [kpi("k", schema, "SELECT 4242 AS value")] });
  ctx = { write, embedId, customer };
});

describe("EMBED_REQUIRE_SIGNED=true", () => {
  it("refuses customer_token with 401 and a message that says to use signed tokens", async () => {
    const res = await call("GET", `/embed/${ctx.embedId}?customer_token=${ctx.customer.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toContain("signed embed token");
    expect(res.body).not.toContain("4,242");
    expect(res.body).not.toContain("data-render-complete");
  });

  it("still opens the dashboard with a signed token", async () => {
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(minted.status).toBe(200);
    const res = await call("GET", `/embed/${ctx.embedId}?token=${minted.body.token}`);
    expect(res.status).toBe(200);
    expect(panelText(res.body, "k")).toContain("4,242");
  });
});
