// GET /api/dashboards/ (docs/embedding.md): an API token, read or write, lists the dashboards its
// customers can be shown — embed_id, name and environment tags — without the admin token.
import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";

describe("GET /api/dashboards/", () => {
  it("lists the dashboards with a version, their tags by name, to a read token; one a customer's token can then show", async () => {
    await seedOrders();
    const { write, read } = await workspace();
    const { schema, demo } = await sources();
    const definition = { panels: [kpi("total", schema, "SELECT SUM(amount) AS value FROM orders")] };
    const tagged = await dashboard(definition, ["production", "email"]);
    const untagged = await dashboard(definition);
    // No version yet: its pages answer 422 no_dashboard_version, so no customer can be shown it.
    const empty = unique("empty");
    expect((await admin("POST", "/admin/dashboards/", { embed_id: empty, name: "Not yet" })).status).toBe(200);

    const res = await call("GET", "/api/dashboards/", { token: read });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("RateLimit-Limit")).not.toBeNull();
    const byId = new Map((res.body.dashboards as { embed_id: string }[]).map((d) => [d.embed_id, d]));
    expect(byId.get(tagged)).toEqual({ embed_id: tagged, name: "Test dashboard", tags: ["email", "production"] });
    expect(byId.get(untagged)).toEqual({ embed_id: untagged, name: "Test dashboard", tags: [] });
    expect(byId.has(empty)).toBe(false);
    const ids = (res.body.dashboards as { embed_id: string }[]).map((d) => d.embed_id);
    expect(ids).toEqual([...ids].sort());

    // What it lists can be shown: a customer's signed link to it renders.
    const customer = await createCustomer(write, { provided_id: unique("c"), name: "Listed", mapping: { [schema]: demo } });
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: customer.provided_id, dashboard_embed_id: tagged },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    expect((await call("GET", new URL(minted.body.embed_url).pathname + new URL(minted.body.embed_url).search)).status).toBe(200);
    // Control: the one left out cannot be shown.
    const notYet = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: customer.provided_id, dashboard_embed_id: empty },
    });
    if (notYet.status === 200)
      expect((await call("GET", new URL(notYet.body.embed_url).pathname + new URL(notYet.body.embed_url).search)).status).toBe(422);
    else expect(notYet.status).toBe(422);
  });

  it("wants an API token: none is 401 with a request id; a write token lists the same", async () => {
    const { write, read } = await workspace();
    const none = await call("GET", "/api/dashboards/");
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: "missing_api_token", request_id: none.headers.get("X-Request-Id") });
    const byRead = await call("GET", "/api/dashboards/", { token: read });
    const byWrite = await call("GET", "/api/dashboards/", { token: write });
    expect(byWrite.status).toBe(200);
    expect(byWrite.body.dashboards).toEqual(byRead.body.dashboards);
  });
});
