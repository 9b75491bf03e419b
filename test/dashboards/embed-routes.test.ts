import { beforeAll, describe, expect, it } from "vitest";
import {
  admin,
  bindings,
  call,
  createCustomer,
  dashboard,
  embed,
  kpi,
  panelText,
  seedOrders,
  sources,
  unique,
  workspace,
} from "../helpers/dashboards";

let ctx: { write: string; schema: number; demo: number; other: number };
beforeAll(async () => {
  await seedOrders();
  const { write } = await workspace();
  ctx = { write, ...(await sources()) };
});

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

const revenue = (schema: number) =>
  kpi("revenue", schema, "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}");

describe("embed page: data per customer", () => {
  it("shows each customer only its own rows through the same dashboard", async () => {
    const alpha = await createCustomer(ctx.write, { provided_id: "alpha", mapping: { [ctx.schema]: ctx.demo } });
    const beta = await createCustomer(ctx.write, { provided_id: "beta", mapping: { [ctx.schema]: ctx.demo } });
    const embedId = await dashboard({ panels: [revenue(ctx.schema)] });
    const a = await embed(embedId, alpha.token);
    const b = await embed(embedId, beta.token);
    expect(a.status).toBe(200);
    expect(panelText(a.body, "revenue")).toContain("350");
    expect(panelText(b.body, "revenue")).toContain("10");
    expect(a.body).not.toContain(">10<");
    expect(a.headers.get("X-D1-Round-Trips")).toBe("1");
    expect(a.headers.get("X-Data-Round-Trips")).toBe("1");
  });

  it("runs the data source the nearest mapping picks (child overrides parent)", async () => {
    const parent = unique("parent");
    await createCustomer(ctx.write, { provided_id: parent, mapping: { [ctx.schema]: ctx.demo } });
    const inherits = await createCustomer(ctx.write, {
      provided_id: "alpha-child",
      parent_provided_id: parent,
      hierarchy_level_name: "User",
    });
    const embedId = await dashboard({ panels: [kpi("n", ctx.schema, "SELECT COUNT(*) AS value, SUM(amount) AS total FROM orders")] });
    // Inherited mapping → DEMO_DATA (4 orders).
    expect(panelText((await embed(embedId, inherits.token)).body, "n")).toBe("n 4");
    await call("POST", "/api/update_customer/", {
      token: ctx.write,
      body: { provided_id: "alpha-child", mapping: { [ctx.schema]: ctx.other } },
    });
    // Own mapping → OTHER_DATA (1 order).
    expect(panelText((await embed(embedId, inherits.token)).body, "n")).toBe("n 1");
  });

  it("binds placeholders as parameters: a property holding SQL is just data", async () => {
    const sneaky = await createCustomer(ctx.write, {
      provided_id: unique("sneaky"),
      mapping: { [ctx.schema]: ctx.demo },
      properties: { region: "EU' OR '1'='1" },
    });
    const embedId = await dashboard({
      panels: [kpi("rows", ctx.schema, "SELECT COUNT(*) AS value FROM orders WHERE region = {{customer.properties.region}}")],
    });
    expect(panelText((await embed(embedId, sneaky.token)).body, "rows")).toBe("rows 0");
    const count = await bindings.DEMO_DATA.prepare("SELECT COUNT(*) AS n FROM orders").first<{ n: number }>();
    expect(count?.n).toBe(4);
  });

  it("passes variables from var_ query parameters, defaults otherwise", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({
      variables: [{ name: "since", default: "2026-01-01" }],
      panels: [
        kpi(
          "since",
          ctx.schema,
          "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
        ),
      ],
    });
    expect(panelText((await embed(embedId, alpha.token)).body, "since")).toContain("350");
    expect(panelText((await embed(embedId, alpha.token, "&var_since=2026-02-01")).body, "since")).toContain("250");
  });

  it("resolves nested variables ({{variables.a.b}}) from a JSON var_ value", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({
      panels: [
        kpi(
          "range",
          ctx.schema,
          "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.range.from}}",
        ),
      ],
    });
    const range = encodeURIComponent(JSON.stringify({ from: "2026-02-01" }));
    expect(panelText((await embed(embedId, alpha.token, `&var_range=${range}`)).body, "range")).toContain("250");
  });

  it("refuses a write statement before running it, even if one was stored behind the API's back", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({ panels: [revenue(ctx.schema)] });
    const tampered = JSON.stringify({ variables: [], panels: [kpi("evil", ctx.schema, "DELETE FROM orders"), revenue(ctx.schema)] });
    await bindings.DB.prepare(
      "INSERT INTO dashboard_versions (dashboard_id, version_number, definition) SELECT id, 99, ? FROM dashboards WHERE embed_id = ?",
    )
      .bind(tampered, embedId)
      .run();
    const res = await embed(embedId, alpha.token);
    expect(panelText(res.body, "evil")).toMatch(
      /query was not run: only SELECT, WITH … SELECT or VALUES queries are allowed \(this one starts with .{1,6}DELETE/,
    );
    expect(panelText(res.body, "revenue")).toContain("350");
    expect((await bindings.DEMO_DATA.prepare("SELECT COUNT(*) AS n FROM orders").first<{ n: number }>())?.n).toBe(4);
  });

  it("never reads the service's own database, even through a data source stored behind the API's back", async () => {
    const own = await bindings.DB.prepare("INSERT INTO data_sources (name, binding, kind) VALUES ('Own', 'DB', 'd1') RETURNING id").first<{
      id: number;
    }>();
    const schema = (await admin("POST", "/admin/schemas/", { name: unique("own") })).body.schema.id as number;
    const viewer = await createCustomer(ctx.write, { provided_id: unique("curious"), mapping: { [schema]: own!.id } });
    const embedId = await dashboard({ panels: [kpi("tokens", schema, "SELECT count(*) AS value FROM customers")] });
    const res = await embed(embedId, viewer.token);
    expect(res.status).toBe(200);
    expect(panelText(res.body, "tokens")).toContain("could not be loaded");
  });

  it("renders a message for a missing mapping and a failing query while the rest renders", async () => {
    const unmapped = await createCustomer(ctx.write, { provided_id: unique("unmapped") });
    const mapped = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({
      panels: [
        revenue(ctx.schema),
        kpi("broken", ctx.schema, "SELECT value FROM no_such_table", 3),
        { id: "note", type: "text", title: "Note", text: "Still here", layout: { x: 6, y: 0, w: 6, h: 2 } },
      ],
    });
    const none = await embed(embedId, unmapped.token);
    expect(none.status).toBe(200);
    expect(panelText(none.body, "revenue")).toContain("No data source is set up");
    expect(panelText(none.body, "note")).toContain("Still here");
    const some = await embed(embedId, mapped.token);
    expect(panelText(some.body, "broken")).toContain("could not be loaded");
    expect(panelText(some.body, "revenue")).toContain("350");
    expect(some.body).not.toContain("no_such_table");
  });

  it("says so when a query returns no rows", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({ panels: [{ ...kpi("t", ctx.schema, "SELECT * FROM orders WHERE 0"), type: "table" }] });
    expect(panelText((await embed(embedId, alpha.token)).body, "t")).toContain("No data for this selection");
  });

  it("runs all panels of one data source in one batch (one round trip per source)", async () => {
    const child = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const second = (await admin("POST", "/admin/schemas/", { name: unique("second") })).body.schema.id;
    await call("POST", "/api/update_customer/", {
      token: ctx.write,
      body: { provided_id: "alpha", mapping: { [ctx.schema]: ctx.demo, [second]: ctx.other } },
    });
    const five = Array.from({ length: 5 }, (_, i) => kpi(`k${i}`, ctx.schema, `SELECT ${i} AS value`, (i % 4) * 3, Math.floor(i / 4) * 2));
    const one = await dashboard({ panels: five });
    expect((await embed(one, child.token)).headers.get("X-Data-Round-Trips")).toBe("1");
    const two = await dashboard({ panels: [...five, kpi("other", second, "SELECT COUNT(*) AS value FROM orders", 6, 2)] });
    const res = await embed(two, child.token);
    expect(res.headers.get("X-Data-Round-Trips")).toBe("2");
    expect(panelText(res.body, "other")).toBe("other 1");
    await call("POST", "/api/update_customer/", { token: ctx.write, body: { provided_id: "alpha", mapping: { [ctx.schema]: ctx.demo } } });
  });
});

describe("embed page: rendering", () => {
  it("is one self-contained document with SVG charts, a table and data-render-complete", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const q = "SELECT month, SUM(amount) AS revenue FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY month ORDER BY month";
    const embedId = await dashboard({
      title: "Charts",
      panels: [
        {
          id: "bar",
          type: "bar",
          title: "Bar",
          schema_id: ctx.schema,
          sql: q,
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 0, y: 0, w: 6, h: 4 },
        },
        {
          id: "line",
          type: "line",
          title: "Line",
          schema_id: ctx.schema,
          sql: q,
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 6, y: 0, w: 6, h: 4 },
        },
        {
          id: "area",
          type: "area",
          title: "Area",
          schema_id: ctx.schema,
          sql: q,
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 0, y: 4, w: 6, h: 4 },
        },
        {
          id: "pie",
          type: "pie",
          title: "Pie",
          schema_id: ctx.schema,
          sql: q,
          label_column: "month",
          value_column: "revenue",
          layout: { x: 6, y: 4, w: 6, h: 4 },
        },
        { id: "table", type: "table", title: "Table", schema_id: ctx.schema, sql: q, layout: { x: 0, y: 8, w: 12, h: 3 } },
      ],
    });
    const res = await embed(embedId, alpha.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    const html: string = res.body;
    expect(html).toContain('<body data-render-complete="true">');
    expect(html.match(/<svg class="chart"/g)).toHaveLength(4);
    // The x values are months (YYYY-MM): the page shows them as the en-US month, written by Intl.
    const january = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", timeZone: "UTC" }).format(Date.UTC(2026, 0, 1));
    for (const id of ["bar", "line", "area", "pie"]) expect(panelText(html, id)).toContain(january);
    expect(html).toMatch(/<th class="num">revenue<\/th>/);
    // The embed page scrolls a wide table; only a still page (capture, share link) wraps its cells.
    expect(html).toMatch(/<main class="dashboard"/);
    expect(html).toContain("grid-column:1 / span 12");
    expect(html).not.toMatch(/<link|src=|href="http|url\(http/);
    // One inline script (the frame script for embed.js), allowed by its hash and nothing else.
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(html.match(/<script/g)).toHaveLength(1);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain(`script-src 'sha256-${await sha256Base64(scripts[0])}';`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors *");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("escapes titles, properties and variables", async () => {
    const evil = await createCustomer(ctx.write, {
      provided_id: unique("evil"),
      name: "<img src=x onerror=alert(1)>",
      properties: { motto: "<script>alert('p')</script>" },
      mapping: { [ctx.schema]: ctx.demo },
    });
    const embedId = await dashboard({
      title: "<b>{{customer.name}}</b>",
      panels: [
        {
          id: "t",
          type: "text",
          title: "<i>title</i>",
          text: "{{customer.name}} says {{customer.properties.motto}} about {{variables.topic}}",
          layout: { x: 0, y: 0, w: 12, h: 2 },
        },
        { ...kpi("k", ctx.schema, "SELECT '<svg onload=alert(2)>' AS value", 0, 2), title: "{{variables.topic}}" },
      ],
    });
    const html: string = (await embed(embedId, evil.token, `&var_topic=${encodeURIComponent("<iframe src=//x>")}`)).body;
    for (const raw of ["<img src=x", "<script>alert", "<iframe src", "<svg onload", "<i>title", "<b>&lt;"]) expect(html).not.toContain(raw);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("&lt;script&gt;alert(&#39;p&#39;)&lt;/script&gt;");
    expect(html).toContain("&lt;iframe src=//x&gt;");
  });

  it("marks data panels of demo customers with a watermark", async () => {
    const demo = await createCustomer(ctx.write, { provided_id: unique("demo"), is_demo_group: true, mapping: { [ctx.schema]: ctx.demo } });
    const paid = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({ panels: [revenue(ctx.schema)] });
    expect((await embed(embedId, demo.token)).body).toContain('class="demo-mark"');
    expect((await embed(embedId, paid.token)).body).not.toContain('class="demo-mark"');
  });
});

describe("embed page: versions and access", () => {
  it("picks the newest version or draft without environment, the tagged one with it, 404 for an unknown tag", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = await dashboard({ panels: [kpi("v", ctx.schema, "SELECT 'version one' AS value")] }, ["production"]);
    await admin("POST", "/admin/dashboard_versions/", {
      embed_id: embedId,
      draft: true,
      definition: { panels: [kpi("v", ctx.schema, "SELECT 'draft two' AS value")] },
    });
    expect(panelText((await embed(embedId, alpha.token)).body, "v")).toBe("v draft two");
    expect(panelText((await embed(embedId, alpha.token, "&environment=production")).body, "v")).toBe("v version one");
    const missing = await embed(embedId, alpha.token, "&environment=staging");
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain("version one");
    // An error page is not a dashboard: a capture waiting for the mark must not take it for one.
    expect(missing.body).not.toContain("data-render-complete");
    expect(missing.body).toContain('data-status="404"');
    expect((await embed("no-such-dashboard", alpha.token)).status).toBe(404);
  });

  it("answers 422 for a dashboard without any version", async () => {
    const alpha = (await call("POST", "/api/get_customer/", { token: ctx.write, body: { provided_id: "alpha" } })).body.customer;
    const embedId = unique("empty");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Empty" });
    const res = await embed(embedId, alpha.token);
    expect(res.status).toBe(422);
    expect(res.body).not.toContain("data-render-complete");
    expect(res.body).toContain('data-status="422"');
  });

  it("answers 401 without data for a wrong, refreshed or deleted customer token", async () => {
    const customer = await createCustomer(ctx.write, {
      provided_id: unique("viewer"),
      name: "Secret Viewer",
      mapping: { [ctx.schema]: ctx.demo },
    });
    const embedId = await dashboard({ panels: [kpi("k", ctx.schema, "SELECT 4242 AS value")] });
    expect(panelText((await embed(embedId, customer.token)).body, "k")).toBe("k 4,242");

    for (const token of ["", "f".repeat(64), "not-a-token"]) {
      const res = await embed(embedId, token);
      expect(res.status).toBe(401);
      expect(res.body).not.toContain("4,242");
      expect(res.body).not.toContain("data-render-complete");
      expect(res.body).toContain('data-status="401"');
    }
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: customer.token } });
    const old = await embed(embedId, customer.token);
    expect(old.status).toBe(401);
    expect(old.body).not.toContain("Secret Viewer");
    const fresh = refreshed.body.customer.token;
    expect((await embed(embedId, fresh)).status).toBe(200);
    await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: fresh } });
    expect((await embed(embedId, fresh)).status).toBe(401);
  });

  it("serves embed.js defining <dashboard-embed> that mounts an iframe", async () => {
    const res = await call("GET", "/embed.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/javascript");
    expect(res.body).toContain('customElements.define("dashboard-embed"');
    expect(res.body).toContain('"/embed/"');
    expect(res.body).toContain("customer_token");
    expect(res.body).toContain('"http://api.test"');
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
  });

  it("serves the versioned script immutable, byte for byte the same on every origin, listed with its SRI hash by versions.json", async () => {
    const versions = await call("GET", "/embed/versions.json");
    expect(versions.status).toBe(200);
    const latest = versions.body.latest as string;
    expect(latest).toMatch(/^v\d+\.\d+$/);
    const script = versions.body.scripts[latest];
    expect(script.url).toBe(`http://api.test/embed/${latest}.js`);
    const res = await call("GET", `/embed/${latest}.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/javascript");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    // An integrity check of a script from another origin needs CORS.
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const digest = await crypto.subtle.digest("SHA-384", new TextEncoder().encode(res.body));
    expect(script.integrity).toBe(`sha384-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`);
    // No origin written in (it takes the script's own URL's), so every deployment serves the same bytes.
    expect(res.body).not.toContain("http://api.test");
    expect(res.body).toContain('customElements.define("dashboard-embed"');
    // embed.js is the same script with this service's origin written in.
    const plain = await call("GET", "/embed.js");
    expect(plain.body).toBe(res.body.replaceAll('"__EMBED_SERVICE_ORIGIN__"', '"http://api.test"'));
    // Control: another version is no script (an embed id never has a dot: not a dashboard either).
    const other = await call("GET", "/embed/v0.9.js");
    expect(other.status).not.toBe(200);
  });
});
