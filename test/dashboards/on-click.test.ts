import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import type { PanelResult } from "../../src/data/query-runner";
import { renderDashboard } from "../../src/dashboards/render";
import { BUILTIN_PRESENTATION } from "../../src/view/presentation";
import { admin, call, createCustomer, kpi, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// on_click (docs/embedding.md "Clicks"): what a click on a data panel does, checked when a version is saved,
// previewed or checked as a file. Each refusal has a passing control next to it.

const layout = { x: 0, y: 0, w: 6, h: 3 };

/** A GET whose redirect is answered, not followed (the Worker's own fetch follows them). */
async function opening(path: string): Promise<{ status: number; headers: Headers }> {
  const res: Response = await (exports as any).default.fetch(new Request(`http://localhost${path}`, { redirect: "manual" }));
  await res.text();
  return { status: res.status, headers: res.headers };
}
const variables = [{ name: "product", default: "all" }];

function bar(schema: number, on_click: unknown) {
  return {
    id: "b",
    type: "bar",
    schema_id: schema,
    sql: "SELECT 'a' AS month, 1 AS total",
    x_column: "month",
    y_columns: ["total"],
    layout,
    on_click,
  };
}
function table(schema: number, on_click: unknown) {
  return { id: "t", type: "table", schema_id: schema, sql: "SELECT 'a' AS product, 1 AS total", layout, on_click };
}

async function save(definition: unknown) {
  const embedId = unique("clicks");
  await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Clicks" });
  const res = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition });
  return { res, embedId };
}

async function versionsOf(embedId: string): Promise<number> {
  const list = await admin("GET", "/admin/dashboards/");
  return list.body.dashboards.find((d: { embed_id: string }) => d.embed_id === embedId).versions;
}

describe("on_click is validated at save (400 validation_error on definition.panels.N.on_click.…)", () => {
  const cases: [string, (schema: number, target: string) => unknown, (schema: number, target: string) => unknown, string][] = [
    [
      "a filter on an undeclared variable",
      (s) => ({ variables, panels: [bar(s, { action: "filter", variable: "region" })] }),
      (s) => ({ variables, panels: [bar(s, { action: "filter", variable: "product" })] }),
      "definition.panels.0.on_click.variable",
    ],
    [
      "a filter on a table without column",
      (s) => ({ variables, panels: [table(s, { action: "filter", variable: "product" })] }),
      (s) => ({ variables, panels: [table(s, { action: "filter", variable: "product", column: "product" })] }),
      "definition.panels.0.on_click.column",
    ],
    [
      "a filter on a KPI without column",
      (s) => ({ variables, panels: [{ ...kpi("k", s, "SELECT 1 AS value"), on_click: { action: "filter", variable: "product" } }] }),
      (s) => ({
        variables,
        panels: [{ ...kpi("k", s, "SELECT 1 AS value"), on_click: { action: "filter", variable: "product", column: "value" } }],
      }),
      "definition.panels.0.on_click.column",
    ],
    [
      "an open of a dashboard that does not exist",
      (s) => ({ panels: [bar(s, { action: "open", dashboard: "no-such-dashboard", variables: { month: "month" } })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { month: "month" } })] }),
      "definition.panels.0.on_click.dashboard",
    ],
    [
      "an unknown action",
      (s) => ({ panels: [bar(s, { action: "navigate" })] }),
      (s) => ({ panels: [bar(s, { action: "emit" })] }),
      "definition.panels.0.on_click.action",
    ],
    [
      "an open without a dashboard",
      (s) => ({ panels: [bar(s, { action: "open", variables: {} })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target })] }),
      "definition.panels.0.on_click.dashboard",
    ],
    [
      "a target variable that is not a variable name",
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { "not a name": "month" } })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { month: "month" } })] }),
      "definition.panels.0.on_click.variables.not a name",
    ],
    [
      "on_click on a text panel",
      () => ({ panels: [{ id: "x", type: "text", text: "Hi", layout, on_click: { action: "emit" } }] }),
      () => ({ panels: [{ id: "x", type: "text", text: "Hi", layout }] }),
      "definition.panels.0.on_click",
    ],
  ];

  it.each(cases)("refuses %s; the corrected definition is saved", async (_name, bad, good, field) => {
    const { schema } = await sources();
    const target = unique("target");
    await admin("POST", "/admin/dashboards/", { embed_id: target, name: "Target" });
    const refused = await save(bad(schema, target));
    expect(refused.res.status).toBe(400);
    expect(refused.res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await versionsOf(refused.embedId)).toBe(0);
    const saved = await save(good(schema, target));
    expect(saved.res.status).toBe(200);
    expect(await versionsOf(saved.embedId)).toBe(1);
  });

  it("keeps the on_click it saved (column defaults are not written in)", async () => {
    const { schema } = await sources();
    const { res, embedId } = await save({ variables, panels: [bar(schema, { action: "filter", variable: "product" })] });
    expect(res.status).toBe(200);
    const read = await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`);
    expect(read.body.version.definition.panels[0].on_click).toEqual({ action: "filter", variable: "product" });
  });

  it("a preview and a file check refuse an open of a missing dashboard too; the check names an on_click column the query lacks", async () => {
    await seedOrders();
    const { schema, demo } = await sources();
    const { write } = await workspace();
    const customer = await createCustomer(write, { provided_id: unique("alpha"), mapping: { [schema]: demo } });
    const definition = { panels: [bar(schema, { action: "open", dashboard: "missing-one", variables: { month: "month" } })] };
    const preview = await admin("POST", "/admin/dashboard_previews/", { provided_id: customer.provided_id, definition });
    expect(preview.status).toBe(400);
    expect(preview.body.error).toMatchObject({ code: "validation_error", field: "definition.panels.0.on_click.dashboard" });

    const target = unique("target");
    await admin("POST", "/admin/dashboards/", { embed_id: target, name: "Target" });
    const previewed = await admin("POST", "/admin/dashboard_previews/", {
      provided_id: customer.provided_id,
      definition: { panels: [bar(schema, { action: "open", dashboard: target, variables: { month: "month" } })] },
    });
    expect(previewed.status).toBe(200);

    const file = (on_click: unknown) => ({
      embed_id: unique("file"),
      name: "F",
      definition: { variables, panels: [bar(schema, on_click)] },
    });
    const missing = await admin("POST", "/admin/dashboard_checks/", file({ action: "open", dashboard: "missing-one" }));
    expect(missing.body.problems).toContainEqual(expect.objectContaining({ field: "definition.panels.0.on_click.dashboard" }));
    const fine = await admin("POST", "/admin/dashboard_checks/", {
      ...file({ action: "open", dashboard: target, variables: { month: "month" } }),
      provided_id: customer.provided_id,
    });
    expect(fine.body).toMatchObject({ valid: true });
    const lacking = await admin("POST", "/admin/dashboard_checks/", {
      ...file({ action: "filter", variable: "product", column: "nope" }),
      provided_id: customer.provided_id,
    });
    expect(lacking.body.problems).toContainEqual(expect.objectContaining({ field: "definition.panels.0.on_click.column" }));
  });
});

describe("clickable panels on the live embed page; none in what is not live", () => {
  let fixture: ReturnType<typeof build> | undefined;
  /** One fixture for the describe block: provided_ids are unique across the service. */
  function setup() {
    fixture ??= build();
    return fixture;
  }
  async function build() {
    await seedOrders();
    const { schema, demo } = await sources();
    const { write } = await workspace();
    // The seeded orders belong to customer ids 'alpha' and 'beta' (each setup has an access group of its own).
    const alpha = await createCustomer(write, { provided_id: "alpha", mapping: { [schema]: demo } });
    const beta = await createCustomer(write, { provided_id: "beta", mapping: { [schema]: demo } });
    const target = unique("month-orders");
    await admin("POST", "/admin/dashboards/", { embed_id: target, name: "Orders of a month" });
    const targetVersion = await admin("POST", "/admin/dashboard_versions/", {
      embed_id: target,
      definition: {
        title: "Orders of {{variables.month}}",
        variables: [{ name: "month", default: "2026-01" }],
        panels: [
          {
            id: "list",
            type: "table",
            schema_id: schema,
            sql: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}} AND month = {{variables.month}}",
            layout,
          },
        ],
      },
    });
    expect(targetVersion.status).toBe(200);
    const source = unique("sales");
    const saved = await admin("POST", "/admin/dashboards/", { embed_id: source, name: "Sales" });
    expect(saved.status).toBe(200);
    const version = await admin("POST", "/admin/dashboard_versions/", {
      embed_id: source,
      definition: {
        variables: [
          { name: "product", default: "all" },
          { name: "region", default: "EU" },
        ],
        panels: [
          {
            id: "months",
            type: "bar",
            schema_id: schema,
            sql: "SELECT month, SUM(amount) AS total FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY month ORDER BY month",
            x_column: "month",
            y_columns: ["total"],
            layout,
            on_click: { action: "open", dashboard: target, variables: { month: "month" } },
          },
          {
            id: "products",
            type: "pie",
            schema_id: schema,
            sql: "SELECT product, SUM(amount) AS total FROM orders WHERE customer_id = {{customer.provided_id}} AND ({{variables.product}} = 'all' OR product = {{variables.product}}) GROUP BY product",
            label_column: "product",
            value_column: "total",
            layout: { ...layout, x: 6 },
            on_click: { action: "filter", variable: "product" },
          },
          {
            id: "trend",
            type: "line",
            schema_id: schema,
            sql: "SELECT month, COUNT(*) AS n FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY month ORDER BY month",
            x_column: "month",
            y_columns: ["n"],
            layout: { ...layout, y: 3 },
            on_click: { action: "filter", variable: "region", column: "month" },
          },
          {
            id: "rows",
            type: "table",
            schema_id: schema,
            sql: "SELECT product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
            layout: { ...layout, x: 6, y: 3 },
            on_click: { action: "emit" },
          },
          { ...kpi("plain", schema, "SELECT 1 AS value"), layout: { x: 0, y: 6, w: 3, h: 2 } },
        ],
      },
    });
    expect(version.status).toBe(200);
    const mint = async (provided_id: string, body: Record<string, unknown> = {}) =>
      (await call("POST", "/api/generate_embed_token/", { token: write, body: { provided_id, dashboard_embed_id: source, ...body } })).body
        .token as string;
    return { alpha, beta, source, target, mint };
  }

  function clickState(html: string): any {
    const match = /<script type="application\/json" id="dashboard-clicks">(.*?)<\/script>/s.exec(html);
    return match ? JSON.parse(match[1]) : null;
  }

  it("marks clickable panels, hands their rows to the click script, allows the script by its hash, and posts the unlocked variables", async () => {
    const { alpha, source, mint } = await setup();
    const token = await mint(alpha.provided_id, { variables: { region: "EU" } });
    const res = await call("GET", `/embed/${source}?token=${token}&var_product=Seats`);
    expect(res.status).toBe(200);
    const html: string = res.body;
    expect(html).toContain('data-panel-id="months" data-click="open"');
    expect(html).toContain('data-panel-id="products" data-click="filter"');
    expect(html).toContain('data-panel-id="rows" data-click="emit"');
    expect(html).not.toMatch(/data-panel-id="plain"[^>]*data-click/);
    const state = clickState(html);
    expect(state.variables).toEqual({ product: "Seats" }); // region is locked by the token: not the host's
    expect(state.locked).toEqual(["region"]);
    expect(state.panels.months).toMatchObject({ action: "open", column: "month", targets: { month: "month" } });
    expect(state.panels.months.rows).toEqual([
      { month: "2026-01", total: 100 },
      { month: "2026-02", total: 250 },
    ]);
    expect(state.panels.products).toMatchObject({
      action: "filter",
      variable: "product",
      column: "product",
      rows: [{ product: "Seats", total: 100 }],
    });
    expect(state.panels.rows).toMatchObject({ action: "emit", column: "product" });
    // The line draws a dot per point (something to click); bars and slices carry ECharts' data index.
    expect(html.match(/ecmeta_data_index="\d+"/g)?.length).toBeGreaterThanOrEqual(2 + 1 + 2);
    // The click script runs by its hash, like the frame script.
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(2);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    for (const script of scripts) {
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
      expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    }
  });

  it("what is not the live page has no affordance: captures, PDFs and e-mails (no interaction) and previews carry no click data, no script but the frame's, no tabindex, no dots on lines", async () => {
    const { alpha, source } = await setup();
    const live = (await call("GET", `/embed/${source}?customer_token=${alpha.token}`)).body as string;
    expect(live).toContain('id="dashboard-clicks"');
    const version = (await admin("GET", `/admin/dashboard_versions/?embed_id=${source}`)).body.version;
    const results = new Map<string, PanelResult>([
      ["months", { status: "ok", rows: [{ month: "2026-01", total: 1 }], truncated: false }],
      ["products", { status: "ok", rows: [{ product: "Seats", total: 1 }], truncated: false }],
      [
        "trend",
        {
          status: "ok",
          rows: [
            { month: "2026-01", n: 1 },
            { month: "2026-02", n: 2 },
          ],
          truncated: false,
        },
      ],
      ["rows", { status: "ok", rows: [{ product: "Seats", amount: 1 }], truncated: false }],
    ]);
    const context = { customer: { provided_id: "a", name: "A", properties: {} }, variables: { product: "all", region: "EU" } } as any;
    const capture = renderDashboard({
      definition: version.definition,
      dashboardName: "Sales",
      context,
      isDemo: false,
      results,
      view: BUILTIN_PRESENTATION,
    });
    const preview = (await admin("POST", "/admin/dashboard_previews/", { provided_id: alpha.provided_id, definition: version.definition }))
      .body;
    const previewPage = (await call("GET", new URL(preview.preview_url).pathname + new URL(preview.preview_url).search)).body as string;
    for (const page of [capture, previewPage]) {
      expect(page).toContain("<svg");
      expect(page).not.toContain("dashboard-clicks");
      expect(page).not.toContain("data-click");
      expect(page).not.toContain("tabindex");
      expect(page.match(/<script>/g)?.length).toBe(1);
    }
    // The line of the capture has no dots: only its bars and slice carry a data index.
    expect(capture.match(/<path[^>]*ecmeta_ssr_type="chart"/g)?.length).toBe(2);
  });

  it("open: redirects to the target with a token the service minted — same customer, locks, origins, expiry no later, no user_email — and the clicked row's variables", async () => {
    const { alpha, source, target, mint } = await setup();
    const token = await mint(alpha.provided_id, {
      variables: { region: "EU" },
      allowed_origins: ["https://app.example.com"],
      user_email: "viewer@example.com",
      expires_in: 600,
    });
    const claims = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    const res = await opening(
      `/embed/${source}/open/months?token=${token}&dashboard=${target}&width=900&row=${encodeURIComponent('{"month":"2026-02"}')}`,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("Location") ?? "", "http://x");
    expect(location.pathname).toBe(`/embed/${target}`);
    expect(location.searchParams.get("var_month")).toBe("2026-02");
    expect(location.searchParams.get("width")).toBe("900");
    const minted = location.searchParams.get("token") ?? "";
    const mintedClaims = JSON.parse(atob(minted.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    expect(mintedClaims).toMatchObject({
      cid: claims.cid,
      ctv: claims.ctv,
      dsh: target,
      vars: { region: "EU" },
      origins: ["https://app.example.com"],
    });
    expect(mintedClaims.exp).toBeLessThanOrEqual(claims.exp);
    expect(mintedClaims.eml).toBeUndefined();
    const page = await call("GET", location.pathname + location.search);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Orders of 2026-02");
    expect(page.body).toContain("Storage"); // alpha's February order
    expect(page.headers.get("Content-Security-Policy")).toContain("frame-ancestors https://app.example.com");
  });

  it("open: a tampered request is refused — another dashboard (403), a panel that opens nothing (404), another dashboard's token (401); the control passes", async () => {
    const { alpha, beta, source, target, mint } = await setup();
    const token = await mint(alpha.provided_id);
    const other = unique("other");
    await admin("POST", "/admin/dashboards/", { embed_id: other, name: "Other" });
    const row = encodeURIComponent('{"month":"2026-01"}');
    const elsewhere = await opening(`/embed/${source}/open/months?token=${token}&dashboard=${other}&row=${row}`);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get("Location")).toBeNull();
    const notOpening = await opening(`/embed/${source}/open/products?token=${token}&dashboard=${target}&row=${row}`);
    expect(notOpening.status).toBe(404);
    const betaToken = (
      await call("POST", "/api/generate_embed_token/", {
        token: (await workspace()).write,
        body: { provided_id: beta.provided_id, dashboard_embed_id: target },
      })
    ).body.token;
    const foreign = await opening(`/embed/${source}/open/months?token=${betaToken}&dashboard=${target}&row=${row}`);
    expect(foreign.status).toBe(401);
    const control = await opening(`/embed/${source}/open/months?token=${token}&dashboard=${target}&row=${row}`);
    expect(control.status).toBe(302);
    // Beta's own drill shows beta's rows, never alpha's.
    const betaDrill = await opening(`/embed/${source}/open/months?token=${await mint(beta.provided_id)}&dashboard=${target}&row=${row}`);
    const betaPage = await call(
      "GET",
      new URL(betaDrill.headers.get("Location") ?? "", "http://x").pathname +
        new URL(betaDrill.headers.get("Location") ?? "", "http://x").search,
    );
    // beta's January order is 7; alpha's is 100
    expect(betaPage.body).toMatch(/<td class="num">7<\/td>/);
    expect(betaPage.body).not.toMatch(/<td class="num">100<\/td>/);
  });

  it("open: the target names the dashboard the frame was opened on (home) and shows a Back control in the page's language; the home page and captures have none", async () => {
    const { alpha, source, target, mint } = await setup();
    const row = encodeURIComponent('{"month":"2026-02"}');
    const res = await opening(
      `/embed/${source}/open/months?token=${await mint(alpha.provided_id, { locale: "de-DE" })}&dashboard=${target}&row=${row}`,
    );
    const location = new URL(res.headers.get("Location") ?? "", "http://x");
    expect(location.searchParams.get("home")).toBe(source);
    const page = await call("GET", location.pathname + location.search);
    expect(page.body).toMatch(/<nav class="drill-back"><button type="button" data-drill-back>.*Zurück<\/button><\/nav>/);
    // Control: the page it was opened on has no Back control.
    const home = await call("GET", `/embed/${source}?token=${await mint(alpha.provided_id)}`);
    expect(home.status).toBe(200);
    expect(home.body).not.toContain('<nav class="drill-back">');
    // Only the live embed page shows it: a page without clicks (a preview's) has none, even with the parameter.
    const draw = (clicks: boolean) =>
      renderDashboard({
        definition: { variables: [], panels: [] },
        dashboardName: "Orders",
        context: { customer: { provided_id: "x", name: "X" }, variables: {} } as never,
        isDemo: false,
        results: new Map(),
        view: BUILTIN_PRESENTATION,
        interaction: { path: `/embed/${target}`, query: { home: source }, locked: [], clicks },
      });
    expect(draw(false)).not.toContain('<nav class="drill-back">');
    expect(draw(true)).toContain('<nav class="drill-back">');
  });

  it("open with a customer token keeps the customer token", async () => {
    const { alpha, source, target } = await setup();
    const res = await opening(
      `/embed/${source}/open/months?customer_token=${alpha.token}&row=${encodeURIComponent('{"month":"2026-01"}')}`,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("Location") ?? "", "http://x");
    expect(location.pathname).toBe(`/embed/${target}`);
    expect(location.searchParams.get("customer_token")).toBe(alpha.token);
    expect(location.searchParams.get("var_month")).toBe("2026-01");
  });
});
