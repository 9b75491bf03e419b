import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv, sha256 } from "../helpers/api";
import { admin, bindings, call, createCustomer, dashboard, kpi, unique, workspace } from "../helpers/dashboards";
import { fetchDownload, isPng, waitForJob } from "../helpers/delivery";

// Captures (a screenshot's download, a report's share link) draw the same panels as the embed
// page, through the same query cache, and say where the results came from.

let ctx: { write: string; schema: number; demo: number };

beforeAll(async () => {
  await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS capture_orders (customer_id TEXT, amount REAL)").run();
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("captures") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  ctx = { write, schema, demo };
});

async function cachedCustomerDashboard(amount: number) {
  const providedId = unique("capture");
  await bindings.DEMO_DATA.prepare("INSERT INTO capture_orders VALUES (?, ?)").bind(providedId, amount).run();
  const customer = await createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: ctx.demo } });
  const embedId = await dashboard({
    cache_ttl_seconds: 600,
    panels: [
      kpi("revenue", ctx.schema, "SELECT SUM(amount) AS value FROM capture_orders WHERE customer_id = {{customer.provided_id}}"),
      kpi("orders", ctx.schema, "SELECT count(*) AS value FROM capture_orders WHERE customer_id = {{customer.provided_id}}", 3),
    ],
  });
  return { customer, embedId };
}

describe("X-Query-Cache on captures", () => {
  it("a screenshot's download says hit when the embed page had stored the panel's result, miss when it ran it", async () => {
    const { customer, embedId } = await cachedCustomerDashboard(70);
    const shoot = async () => {
      const res = await call("POST", "/api/dashboard/screenshot", {
        token: ctx.write,
        body: { provided_id: customer.provided_id, dashboard_embed_id: embedId, width: 400 },
      });
      expect(res.status).toBe(200);
      await waitForJob(ctx.write, res.body.job_id, (s) => s === "done" || s === "failed");
      return fetchDownload(res.body.url);
    };
    const first = await shoot();
    expect(first.status).toBe(200);
    expect(isPng(first.bytes)).toBe(true);
    expect(first.headers.get("X-Query-Cache")).toBe("miss");

    const page = await callWithEnv({}, "GET", `/embed/${embedId}?customer_token=${customer.token}`);
    expect(page.headers.get("X-Query-Cache")).toBe("hit");
    expect(page.headers.get("X-Cache-Reads")).toBe("1");
    const second = await shoot();
    expect(second.headers.get("X-Query-Cache")).toBe("hit");
    // The capture's panels all hit: one read of the page's entry (answered with the file).
    expect(second.headers.get("X-Cache-Reads")).toBe("1");
  });

  it("a report's share link renders from the cache and says so", async () => {
    const { customer, embedId } = await cachedCustomerDashboard(80);
    const row = await bindings.DB.prepare("SELECT id, token_hash FROM customers WHERE provided_id = ?")
      .bind(customer.provided_id)
      .first<{ id: number; token_hash: string }>();
    const token = (await sha256(unique("share"))).slice(0, 64);
    // A share link names the customer token it was made under (a refresh ends it).
    const ctv = (await sha256(`embed-token:${row!.token_hash}`)).slice(0, 32);
    await (env as unknown as { LINKS: KVNamespace }).LINKS.put(
      `share:${await sha256(token)}`,
      JSON.stringify({ customerId: row!.id, embedId, variables: {}, ctv }),
    );
    const share = () => callWithEnv({}, "GET", `/share/${token}`);
    const first = await share();
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Query-Cache")).toBe("miss");
    expect(first.body).toContain("80");
    await bindings.DEMO_DATA.prepare("INSERT INTO capture_orders VALUES (?, 1)").bind(customer.provided_id).run();
    expect(first.headers.get("X-Cache-Reads")).toBe("3");
    const second = await share();
    expect(second.headers.get("X-Query-Cache")).toBe("hit");
    expect(second.headers.get("X-Cache-Reads")).toBe("1");
    expect(second.body).not.toContain("81");
  });
});
