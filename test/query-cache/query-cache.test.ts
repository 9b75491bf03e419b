import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv } from "../helpers/api";
import { admin, bindings, call, createCustomer, dashboard, kpi, panelText, unique, workspace } from "../helpers/dashboards";

// Query results near the viewer (src/query-cache), through the real Worker: the Workers Cache
// API of the local runtime, real local D1 data sources. Each test uses customers of its own,
// so no entry of one test is seen by another.

let ctx: { write: string; read: string; schema: number; demo: number; other: number };

beforeAll(async () => {
  await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS cache_orders (customer_id TEXT, amount REAL, day TEXT)").run();
  await bindings.OTHER_DATA.prepare("CREATE TABLE IF NOT EXISTS cache_orders (customer_id TEXT, amount REAL, day TEXT)").run();
  const { write, read } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("cache") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  const other = (await admin("POST", "/admin/data_sources/", { name: "Other", binding: "OTHER_DATA" })).body.data_source.id as number;
  ctx = { write, read, schema, demo, other };
});

const REVENUE = "SELECT SUM(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}";

/** A customer of the test's workspace, with `amount` in the orders of DEMO_DATA. */
async function customer(amount: number, extra: Record<string, unknown> = {}) {
  const providedId = unique("viewer");
  await bindings.DEMO_DATA.prepare("INSERT INTO cache_orders VALUES (?, ?, '2026-01-01')").bind(providedId, amount).run();
  return createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: ctx.demo }, ...extra });
}

async function addOrder(providedId: string, amount: number, day = "2026-01-01") {
  await bindings.DEMO_DATA.prepare("INSERT INTO cache_orders VALUES (?, ?, ?)").bind(providedId, amount, day).run();
}

/** A dashboard of KPI panels with the given TTL (undefined: the field is left out). */
function cachedDashboard(ttl: number | undefined, panels = [kpi("revenue", 0, REVENUE)]) {
  const definition: Record<string, unknown> = { panels: panels.map((p) => ({ ...p, schema_id: ctx.schema })) };
  if (ttl !== undefined) definition.cache_ttl_seconds = ttl;
  return dashboard(definition);
}

/** The embed page, waiting for the work it leaves in the background (storing, refreshing). */
async function view(embedId: string, token: string, query = "") {
  const res = await callWithEnv({}, "GET", `/embed/${embedId}?customer_token=${token}${query}`);
  expect(res.status).toBe(200);
  return { res, cache: res.headers.get("X-Query-Cache"), trips: res.headers.get("X-Data-Round-Trips"), body: res.body as string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("cache_ttl_seconds on a dashboard definition", () => {
  it("serves a repeated view from the cache without calling the data source (miss, then hit with zero data round trips)", async () => {
    const viewer = await customer(100);
    const embedId = await cachedDashboard(600);
    const first = await view(embedId, viewer.token);
    expect(first.cache).toBe("miss");
    expect(first.trips).toBe("1");
    expect(panelText(first.body, "revenue")).toBe("revenue 100");

    await addOrder(viewer.provided_id, 50);
    const second = await view(embedId, viewer.token);
    expect(second.cache).toBe("hit");
    // The value the cache holds, not the database's new total: no data source was asked.
    expect(panelText(second.body, "revenue")).toBe("revenue 100");
    expect(second.trips).toBe("0");
    expect(second.res.headers.get("X-Data-Round-Trips-By-Source")).toBe("");
    expect(second.body).toContain('data-render-complete="true"');
  });

  it("answers off and always runs the queries without a TTL (absent or 0)", async () => {
    const viewer = await customer(10);
    for (const ttl of [undefined, 0]) {
      const embedId = await cachedDashboard(ttl);
      expect((await view(embedId, viewer.token)).cache).toBe("off");
      await addOrder(viewer.provided_id, 1);
      const again = await view(embedId, viewer.token);
      expect(again.cache).toBe("off");
      expect(again.trips).toBe("1");
    }
    expect(panelText((await view(await cachedDashboard(0), viewer.token)).body, "revenue")).toBe("revenue 12");
  });

  it("serves an entry past its TTL once more (stale) while it is fetched again, then the fresh one (hit)", async () => {
    const viewer = await customer(100);
    const embedId = await cachedDashboard(1);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");
    await addOrder(viewer.provided_id, 23);
    await sleep(1100);
    const stale = await view(embedId, viewer.token);
    expect(stale.cache).toBe("stale");
    expect(panelText(stale.body, "revenue")).toBe("revenue 100");
    // The stale view fetched the fresh result in the background (awaited by `view`).
    const fresh = await view(embedId, viewer.token);
    expect(fresh.cache).toBe("hit");
    expect(fresh.trips).toBe("0");
    expect(panelText(fresh.body, "revenue")).toBe("revenue 123");
  });

  it("forgets an entry after twice its TTL: the next view misses and shows the data as it is", async () => {
    const viewer = await customer(5);
    const embedId = await cachedDashboard(1);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");
    await addOrder(viewer.provided_id, 1);
    expect(panelText((await view(embedId, viewer.token)).body, "revenue")).toBe("revenue 5");
    await sleep(2100);
    const expired = await view(embedId, viewer.token);
    expect(expired.cache).toBe("miss");
    expect(expired.trips).toBe("1");
    expect(panelText(expired.body, "revenue")).toBe("revenue 6");
  });

  it("never serves one customer's entry to another customer of the same data source", async () => {
    const alpha = await customer(111);
    const beta = await customer(222);
    // A query that binds nothing of the customer would give both the same rows; still each has its own entry.
    await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS cache_global (n INTEGER)").run();
    const embedId = await cachedDashboard(600, [
      kpi("revenue", 0, REVENUE),
      kpi("everyone", 0, "SELECT count(*) AS value FROM cache_global", 3),
    ]);
    const a = await view(embedId, alpha.token);
    const b = await view(embedId, beta.token);
    expect(panelText(a.body, "revenue")).toBe("revenue 111");
    expect(panelText(b.body, "revenue")).toBe("revenue 222");
    expect(b.cache).toBe("miss");
    await bindings.DEMO_DATA.prepare("INSERT INTO cache_global VALUES (1)").run();
    const b2 = await view(embedId, beta.token);
    expect(panelText(b2.body, "revenue")).toBe("revenue 222");
    expect(b2.cache).toBe("hit");
    const a2 = await view(embedId, alpha.token);
    expect(panelText(a2.body, "revenue")).toBe("revenue 111");
  });

  it("keys on the customer's properties and variables: other values, other entry", async () => {
    const viewer = await customer(0, { properties: { region: "EU" } });
    await addOrder(viewer.provided_id, 7, "2026-03-01");
    const embedId = await dashboard({
      cache_ttl_seconds: 600,
      variables: [{ name: "since", default: "2026-01-01" }],
      panels: [
        {
          ...kpi(
            "recent",
            ctx.schema,
            "SELECT SUM(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
          ),
        },
      ],
    });
    expect(panelText((await view(embedId, viewer.token)).body, "recent")).toBe("recent 7");
    const later = await view(embedId, viewer.token, "&var_since=2026-02-01");
    expect(later.cache).toBe("miss");
    expect(panelText(later.body, "recent")).toBe("recent 7");
    const none = await view(embedId, viewer.token, "&var_since=2026-04-01");
    expect(none.cache).toBe("miss");
    expect(panelText(none.body, "recent")).not.toContain("7");
    expect((await view(embedId, viewer.token, "&var_since=2026-02-01")).cache).toBe("hit");
  });

  it("keys on a signed token's locked variables: another locked value misses and shows its own rows", async () => {
    const viewer = await customer(0);
    await addOrder(viewer.provided_id, 1, "2026-01-10");
    await addOrder(viewer.provided_id, 10, "2026-02-10");
    const embedId = await dashboard({
      cache_ttl_seconds: 600,
      variables: [{ name: "since", default: "2000-01-01" }],
      panels: [
        kpi(
          "recent",
          ctx.schema,
          "SELECT SUM(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
        ),
      ],
    });
    const mint = async (since: string) => {
      const res = await call("POST", "/api/generate_embed_token/", {
        token: ctx.write,
        body: { provided_id: viewer.provided_id, dashboard_embed_id: embedId, variables: { since } },
      });
      return res.body.token as string;
    };
    const signed = async (token: string, query = "") => {
      const res = await callWithEnv({}, "GET", `/embed/${embedId}?token=${token}${query}`);
      return { cache: res.headers.get("X-Query-Cache"), text: panelText(res.body, "recent") };
    };
    const january = await mint("2026-01-01");
    const february = await mint("2026-02-01");
    expect(await signed(january)).toEqual({ cache: "miss", text: "recent 11" });
    expect(await signed(february)).toEqual({ cache: "miss", text: "recent 10" });
    // A `var_` parameter cannot override the locked value, so it reads the locked value's entry.
    expect(await signed(january, "&var_since=2026-02-01")).toEqual({ cache: "hit", text: "recent 11" });
  });

  it("runs only the panels it does not have, still in one batch per data source (partial hit)", async () => {
    const viewer = await customer(40);
    await bindings.OTHER_DATA.prepare("INSERT INTO cache_orders VALUES (?, 9, '2026-01-01')").bind(viewer.provided_id).run();
    const otherSchema = (await admin("POST", "/admin/schemas/", { name: unique("other") })).body.schema.id as number;
    await call("POST", "/api/update_customer/", {
      token: ctx.write,
      body: { provided_id: viewer.provided_id, mapping: { [ctx.schema]: ctx.demo, [otherSchema]: ctx.other } },
    });
    const embedId = unique("partial");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Partial" });
    const save = (panels: unknown[]) =>
      admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: { cache_ttl_seconds: 600, panels } });
    const revenue = kpi("revenue", ctx.schema, REVENUE);
    await save([revenue]);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");

    // A new version keeps `revenue` (same SQL, same values: same entry) and adds two panels on
    // DEMO_DATA and one on OTHER_DATA.
    await save([
      revenue,
      kpi("count", ctx.schema, "SELECT count(*) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 3),
      kpi("biggest", ctx.schema, "SELECT max(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 6),
      kpi("other", otherSchema, REVENUE, 9),
    ]);
    const partial = await view(embedId, viewer.token);
    expect(partial.cache).toBe("miss");
    expect(partial.res.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${ctx.demo}=1,${ctx.other}=1`);
    expect(panelText(partial.body, "revenue")).toBe("revenue 40");
    expect(panelText(partial.body, "count")).toBe("count 1");
    expect(panelText(partial.body, "other")).toBe("other 9");
    const full = await view(embedId, viewer.token);
    expect(full.cache).toBe("hit");
    expect(full.trips).toBe("0");
  });

  it("reads the Cache API once for a page whose panels all hit (X-Cache-Reads: 1), once per panel more only when the page's entry is missing", async () => {
    const viewer = await customer(70);
    const panels = [
      kpi("revenue", 0, REVENUE),
      kpi("count", 0, "SELECT count(*) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 3),
      kpi("biggest", 0, "SELECT max(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 6),
    ];
    const embedId = await cachedDashboard(600, panels);
    const first = await view(embedId, viewer.token);
    expect(first.cache).toBe("miss");
    // The page's entry (1) and each panel's (3), all missing.
    expect(first.res.headers.get("X-Cache-Reads")).toBe("4");
    await addOrder(viewer.provided_id, 5);
    for (let i = 0; i < 3; i++) {
      const hit = await view(embedId, viewer.token);
      expect(hit.cache).toBe("hit");
      expect(hit.res.headers.get("X-Cache-Reads")).toBe("1");
      expect(hit.trips).toBe("0");
      expect(panelText(hit.body, "revenue")).toBe("revenue 70");
      expect(panelText(hit.body, "count")).toBe("count 1");
    }
    // Control: without a TTL nothing is read from the cache, and no X-Cache-Reads is sent.
    const off = await view(await cachedDashboard(undefined, panels), viewer.token);
    expect(off.cache).toBe("off");
    expect(off.res.headers.get("X-Cache-Reads")).toBeNull();
  });

  it("a partial hit runs only the missing panels: the panels it has keep their cached rows, the page's next view is one read", async () => {
    const viewer = await customer(20);
    const embedId = unique("partial-reads");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Partial reads" });
    const save = (panels: unknown[]) =>
      admin("POST", "/admin/dashboard_versions/", {
        embed_id: embedId,
        definition: { cache_ttl_seconds: 600, panels: panels.map((p) => ({ ...(p as object), schema_id: ctx.schema })) },
      });
    const revenue = kpi("revenue", 0, REVENUE);
    const count = kpi("count", 0, "SELECT count(*) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 3);
    await save([revenue, count]);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");
    // The data changes; a new version keeps both panels (same entries) and adds one.
    await addOrder(viewer.provided_id, 1);
    await save([
      revenue,
      count,
      kpi("biggest", 0, "SELECT max(amount) AS value FROM cache_orders WHERE customer_id = {{customer.provided_id}}", 6),
    ]);
    const partial = await view(embedId, viewer.token);
    expect(partial.cache).toBe("miss");
    expect(partial.res.headers.get("X-Cache-Reads")).toBe("4");
    // One data trip, for `biggest` alone: the kept panels show the rows they were stored with.
    expect(partial.trips).toBe("1");
    expect(panelText(partial.body, "revenue")).toBe("revenue 20");
    expect(panelText(partial.body, "count")).toBe("count 1");
    expect(panelText(partial.body, "biggest")).toBe("biggest 20");
    const full = await view(embedId, viewer.token);
    expect(full.cache).toBe("hit");
    expect(full.trips).toBe("0");
    expect(full.res.headers.get("X-Cache-Reads")).toBe("1");
    expect(panelText(full.body, "biggest")).toBe("biggest 20");
  });

  it("never keeps a failing query: once the query works, the next view runs it and shows its rows", async () => {
    const viewer = await customer(0);
    const table = `cache_late_${unique("t").replace(/[^a-z0-9]/gi, "_")}`;
    const embedId = await cachedDashboard(600, [kpi("late", 0, `SELECT count(*) AS value FROM ${table}`)]);
    const failing = await view(embedId, viewer.token);
    expect(failing.cache).toBe("miss");
    expect(panelText(failing.body, "late")).not.toMatch(/late \d/);
    await bindings.DEMO_DATA.prepare(`CREATE TABLE ${table} (x INTEGER)`).run();
    await bindings.DEMO_DATA.prepare(`INSERT INTO ${table} VALUES (1), (2)`).run();
    const working = await view(embedId, viewer.token);
    expect(working.cache).toBe("miss");
    expect(working.trips).toBe("1");
    expect(panelText(working.body, "late")).toBe("late 2");
    expect((await view(embedId, viewer.token)).cache).toBe("hit");
  });

  it("answers the panel's CSV from the page's entry (X-Query-Cache hit, the cached rows)", async () => {
    const viewer = await customer(30);
    const embedId = await cachedDashboard(600);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");
    await addOrder(viewer.provided_id, 1);
    const csv = await callWithEnv({}, "GET", `/embed/${embedId}/panels/revenue.csv?customer_token=${viewer.token}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("X-Query-Cache")).toBe("hit");
    expect(csv.headers.get("X-Data-Round-Trips")).toBe("0");
    expect(csv.body).toBe("value\r\n30\r\n");
  });

  it("sends no X-Query-Cache in production", async () => {
    const viewer = await customer(1);
    const embedId = await cachedDashboard(600);
    const res = await callWithEnv({ ENVIRONMENT: "production" }, "GET", `/embed/${embedId}?customer_token=${viewer.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Query-Cache")).toBeNull();
    expect(res.headers.get("X-Data-Round-Trips")).toBeNull();
  });

  it("refuses a TTL outside 0–86400 or not an integer (400 validation_error), accepts the bounds", async () => {
    const embedId = unique("ttl");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "TTL" });
    const save = (ttl: unknown) =>
      admin("POST", "/admin/dashboard_versions/", {
        embed_id: embedId,
        definition: { cache_ttl_seconds: ttl, panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] },
      });
    for (const bad of [-1, 86_401, 1.5, "60"]) {
      const res = await save(bad);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "definition.cache_ttl_seconds" });
    }
    expect((await save(0)).status).toBe(200);
    expect((await save(86_400)).status).toBe(200);
  });
});

describe("POST /api/invalidate_cache/", () => {
  const invalidate = (body: unknown, token = ctx.write) => call("POST", "/api/invalidate_cache/", { token, body });

  it("makes one customer's entries miss; another customer's stay", async () => {
    const alpha = await customer(1);
    const beta = await customer(2);
    const embedId = await cachedDashboard(600);
    await view(embedId, alpha.token);
    await view(embedId, beta.token);
    await addOrder(alpha.provided_id, 10);
    await addOrder(beta.provided_id, 20);

    const res = await invalidate({ provided_id: alpha.provided_id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1 });
    const a = await view(embedId, alpha.token);
    expect(a.cache).toBe("miss");
    expect(panelText(a.body, "revenue")).toBe("revenue 11");
    const b = await view(embedId, beta.token);
    expect(b.cache).toBe("hit");
    expect(panelText(b.body, "revenue")).toBe("revenue 2");
  });

  it("makes a dashboard's entries miss for every customer; another dashboard's stay", async () => {
    const alpha = await customer(1);
    const beta = await customer(2);
    const embedId = await cachedDashboard(600);
    const otherDashboard = await cachedDashboard(600);
    for (const id of [embedId, otherDashboard]) for (const c of [alpha, beta]) await view(id, c.token);
    await addOrder(alpha.provided_id, 10);
    await addOrder(beta.provided_id, 20);

    expect((await invalidate({ dashboard_embed_id: embedId })).status).toBe(200);
    const a = await view(embedId, alpha.token);
    const b = await view(embedId, beta.token);
    expect([a.cache, b.cache]).toEqual(["miss", "miss"]);
    expect([panelText(a.body, "revenue"), panelText(b.body, "revenue")]).toEqual(["revenue 11", "revenue 22"]);
    const kept = await view(otherDashboard, alpha.token);
    expect(kept.cache).toBe("hit");
    expect(panelText(kept.body, "revenue")).toBe("revenue 1");
  });

  it("a dashboard invalidated by one access group misses for that group's customers only; another group's stay cached", async () => {
    const mine = await customer(1);
    const other = await workspace();
    const theirsId = unique("viewer");
    await addOrder(theirsId, 5);
    const theirs = await createCustomer(other.write, { provided_id: theirsId, mapping: { [ctx.schema]: ctx.demo } });
    const embedId = await cachedDashboard(600);
    for (const c of [mine, theirs]) await view(embedId, c.token);
    await addOrder(mine.provided_id, 10);
    await addOrder(theirsId, 20);

    // The review's case: the other group's write token invalidates the shared dashboard.
    expect((await invalidate({ dashboard_embed_id: embedId }, other.write)).status).toBe(200);
    const kept = await view(embedId, mine.token);
    expect(kept.cache).toBe("hit");
    expect(panelText(kept.body, "revenue")).toBe("revenue 1");
    const missed = await view(embedId, theirs.token);
    expect(missed.cache).toBe("miss");
    expect(panelText(missed.body, "revenue")).toBe("revenue 25");
    // Control: this group's own invalidation reaches its own customer (and a second bump too).
    expect((await invalidate({ dashboard_embed_id: embedId })).status).toBe(200);
    expect(panelText((await view(embedId, mine.token)).body, "revenue")).toBe("revenue 11");
    await addOrder(mine.provided_id, 100);
    expect((await invalidate({ dashboard_embed_id: embedId })).status).toBe(200);
    expect((await view(embedId, mine.token)).cache).toBe("miss");
    expect((await view(embedId, theirs.token)).cache).toBe("hit");
  });

  it("invalidating a parent makes its children's entries miss (they inherit its properties and mapping)", async () => {
    const parent = await customer(0);
    const child = await customer(3, { parent_provided_id: parent.provided_id, hierarchy_level_name: "User" });
    const embedId = await cachedDashboard(600);
    await view(embedId, child.token);
    expect((await view(embedId, child.token)).cache).toBe("hit");
    expect((await invalidate({ provided_id: parent.provided_id })).status).toBe(200);
    expect((await view(embedId, child.token)).cache).toBe("miss");
  });

  it("needs provided_id or dashboard_embed_id (400 validation_error on provided_id)", async () => {
    const viewer = await customer(1);
    const res = await invalidate({});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "provided_id" });
    expect((await invalidate({ provided_id: viewer.provided_id })).status).toBe(200);
  });

  it("changes nothing when the customer or dashboard is unknown or in another access group (404)", async () => {
    const viewer = await customer(1);
    const embedId = await cachedDashboard(600);
    await view(embedId, viewer.token);
    const other = await workspace();
    const foreign = await invalidate({ provided_id: viewer.provided_id }, other.write);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: "customer_not_found", field: "provided_id" });
    const both = await invalidate({ provided_id: viewer.provided_id, dashboard_embed_id: unique("missing") });
    expect(both.status).toBe(404);
    expect(both.body.error).toMatchObject({ code: "dashboard_not_found", field: "dashboard_embed_id" });
    const bothForeign = await invalidate({ provided_id: viewer.provided_id, dashboard_embed_id: embedId }, other.write);
    expect(bothForeign.body.error.code).toBe("customer_not_found");
    // Nothing was bumped: the entry still answers.
    expect((await view(embedId, viewer.token)).cache).toBe("hit");
    // Control: both known → both bumped.
    expect((await invalidate({ provided_id: viewer.provided_id, dashboard_embed_id: embedId })).status).toBe(200);
    expect((await view(embedId, viewer.token)).cache).toBe("miss");
  });

  it("needs a write token (403 read_only_token)", async () => {
    const viewer = await customer(1);
    const res = await invalidate({ provided_id: viewer.provided_id }, ctx.read);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("read_only_token");
  });
});
