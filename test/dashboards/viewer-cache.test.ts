import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv } from "../helpers/api";
import { bindings, call, dashboard, kpi, panelText } from "../helpers/dashboards";
import {
  customerWithOrder,
  freeHit,
  SECONDS,
  swapMappingElsewhere,
  tripsOf,
  type ViewerCacheContext,
  viewerCacheWorkspace,
  withinWindow,
} from "../helpers/viewer-cache";

// What a view reads of its customer, kept at the location for VIEWER_CACHE_SECONDS
// (src/dashboards/viewer-cache.ts), through the real Worker, local D1 and Cache API. A change
// "elsewhere" (another isolate or location) is a write straight to D1 that this isolate did
// not make; a change through the API is this isolate's own and must be seen at once.

const env = { VIEWER_CACHE_SECONDS: String(SECONDS) };
let ctx: ViewerCacheContext;

beforeAll(async () => {
  ctx = await viewerCacheWorkspace("viewer_orders");
});

const REVENUE = "SELECT SUM(amount) AS value FROM viewer_orders WHERE customer_id = {{customer.provided_id}}";

const customer = (amount: number) => customerWithOrder(ctx, "viewer", amount);

const cachedDashboard = () => dashboard({ cache_ttl_seconds: 600, panels: [{ ...kpi("revenue", 0, REVENUE), schema_id: ctx.schema }] });

async function view(embedId: string, token: string, overrides: Record<string, unknown> = env) {
  const res = await callWithEnv(overrides, "GET", `/embed/${embedId}?customer_token=${token}`);
  return {
    status: res.status,
    ...tripsOf(res),
    body: res.body as string,
  };
}

/** Views until `done` holds or the window (+1 s) is over; the last view. */
const within = async (embedId: string, token: string, done: (v: Awaited<ReturnType<typeof view>>) => boolean) =>
  (await withinWindow(() => view(embedId, token), done)).at(-1) as Awaited<ReturnType<typeof view>>;

describe("the viewer's reads kept at the location", () => {
  it("answers a warm hit with no D1 and no Durable Object trip on at least 95 of 100 calls", async () => {
    const viewer = await customer(100);
    const embedId = await cachedDashboard();
    const first = await view(embedId, viewer.token, { VIEWER_CACHE_SECONDS: "600" });
    expect(first.status).toBe(200);
    expect(first.cache).toBe("miss");
    expect(first.d1).not.toBe("0");
    let free = 0;
    for (let i = 0; i < 100; i++) {
      const again = await view(embedId, viewer.token, { VIEWER_CACHE_SECONDS: "600" });
      expect(again.status).toBe(200);
      expect(panelText(again.body, "revenue")).toBe("revenue 100");
      if (freeHit(again)) free++;
    }
    expect(free).toBeGreaterThanOrEqual(95);
  });

  it("reads D1 on every view with VIEWER_CACHE_SECONDS 0 (a miss is still correct)", async () => {
    const viewer = await customer(7);
    const embedId = await cachedDashboard();
    for (let i = 0; i < 3; i++) {
      const page = await view(embedId, viewer.token, { VIEWER_CACHE_SECONDS: "0" });
      expect(page.status).toBe(200);
      expect(page.d1).toBe("1");
      expect(panelText(page.body, "revenue")).toBe("revenue 7");
    }
  });

  it("refuses a refreshed customer token at once in the isolate that refreshed it", async () => {
    const viewer = await customer(5);
    const embedId = await cachedDashboard();
    expect((await view(embedId, viewer.token)).status).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: viewer.token } });
    expect(refreshed.status).toBe(200);
    expect((await view(embedId, viewer.token)).status).toBe(401);
    const fresh = await view(embedId, refreshed.body.customer.token);
    expect(fresh.status).toBe(200);
    expect(panelText(fresh.body, "revenue")).toBe("revenue 5");
  });

  it("refuses a token refreshed elsewhere within VIEWER_CACHE_SECONDS + 1 s", async () => {
    const viewer = await customer(6);
    const embedId = await cachedDashboard();
    expect((await view(embedId, viewer.token)).status).toBe(200);
    await bindings.DB.prepare("UPDATE customers SET token_hash = ? WHERE provided_id = ?").bind("0".repeat(64), viewer.provided_id).run();
    const started = Date.now();
    const last = await within(embedId, viewer.token, (v) => v.status === 401);
    expect(last.status).toBe(401);
    expect(Date.now() - started).toBeLessThanOrEqual((SECONDS + 1) * 1000 + 500);
  });

  it("answers 401 for a deleted customer's page at once in the isolate that deleted it", async () => {
    const viewer = await customer(8);
    const embedId = await cachedDashboard();
    expect((await view(embedId, viewer.token)).status).toBe(200);
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: viewer.token } });
    expect(deleted.status).toBe(200);
    expect((await view(embedId, viewer.token)).status).toBe(401);
  });

  it("shows a mapping changed elsewhere within the window, and never another customer's rows", async () => {
    const viewer = await customer(11);
    const neighbour = await customer(999);
    await bindings.OTHER_DATA.prepare("INSERT INTO viewer_orders VALUES (?, ?)").bind(viewer.provided_id, 22).run();
    const embedId = await cachedDashboard();
    expect(panelText((await view(embedId, viewer.token)).body, "revenue")).toBe("revenue 11");
    expect(panelText((await view(embedId, neighbour.token)).body, "revenue")).toBe("revenue 999");
    // The mapping as stored, its data source swapped (as update_customer in another isolate would).
    await swapMappingElsewhere(ctx, viewer.provided_id);
    const seen: string[] = [];
    const last = await within(embedId, viewer.token, (v) => {
      seen.push(panelText(v.body, "revenue"));
      return panelText(v.body, "revenue") === "revenue 22";
    });
    expect(panelText(last.body, "revenue")).toBe("revenue 22");
    // Only this customer's numbers, of the old source or the new one.
    for (const text of seen) expect(["revenue 11", "revenue 22"]).toContain(text);
    expect(panelText((await view(embedId, neighbour.token)).body, "revenue")).toBe("revenue 999");
  });
});
