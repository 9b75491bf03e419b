import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { createTheme, DARK } from "../helpers/themes";
import { CATALOGUES } from "../../src/view/messages";
import { escapeHtml } from "../../src/lib/html";

// The report builder page, its script and its one-round-trip `/view` (docs/report-builder.md).
// What the page does in a browser is tested in test/e2e/report-builder-browser.test.ts.

let ctx: { write: string; schema: number; demo: number };
let blueprint: { id: number; embed_id: string };
let other: { id: number; embed_id: string };
let dashboardId: string;

const ORDERS = {
  table_name: "orders",
  dataset_name: "Orders",
  description: "One row per order </script><b>",
  query: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
  columns: [
    { name: "day", type: "DATE", display_name: "Order day" },
    { name: "product", type: "STRING", display_name: "Product" },
    { name: "amount", type: "FLOAT", display_name: "Amount", can_be_grouped: false },
  ],
};

async function createBlueprint(customer: string, name: string) {
  const res = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: customer, blueprint_name: name, tables: [{ ...ORDERS, schema_id: ctx.schema }] },
  });
  if (res.status !== 200) throw new Error(`create_blueprint: ${JSON.stringify(res.body)}`);
  return (await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: res.body.blueprint_id } })).body.blueprint;
}

async function mint(body: Record<string, unknown>): Promise<string> {
  const res = await call("POST", "/api/generate_embed_token/", {
    token: ctx.write,
    body: { provided_id: "alpha", blueprint_id: blueprint.id, ...body },
  });
  if (res.status !== 200) throw new Error(`mint: ${JSON.stringify(res.body)}`);
  return res.body.token;
}

const view = (token: string, body: unknown, embedId = blueprint.embed_id) =>
  call("POST", `/report-builder/${embedId}/view`, { body, headers: { Authorization: `Bearer ${token}` } });

/** What the page hands its script (the JSON in `#rb-boot`). */
function boot(html: string): any {
  const json = /<script type="application\/json" id="rb-boot">([^<]*)<\/script>/.exec(html);
  if (!json) throw new Error("no boot data in the page");
  return JSON.parse(json[1]);
}

const bySum = { dataset: "Orders", group_by: [{ column: "product" }], values: [{ column: "amount", aggregate: "sum" }] };

beforeAll(async () => {
  await seedOrders();
  const { write } = await workspace();
  const { schema, demo } = await sources();
  ctx = { write, schema, demo };
  await createCustomer(write, { provided_id: "alpha", name: "Alpha <GmbH>", mapping: { [schema]: demo } });
  await createCustomer(write, { provided_id: "beta", mapping: { [schema]: demo } });
  blueprint = await createBlueprint("alpha", "Alpha <sales>");
  other = await createBlueprint("beta", "Beta sales");
  dashboardId = await dashboard({ panels: [kpi("total", schema, "SELECT 1 AS value")] }, [], unique("dash"));
});

describe("GET /report-builder/<embed_id>: the builder page", () => {
  it("serves the builder with the blueprint's datasets, its own script and nothing from another origin", async () => {
    const res = await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({})}`);
    expect(res.status).toBe(200);
    const html = res.body as string;
    expect(html).toContain("Alpha &lt;sales&gt;"); // escaped
    expect(html).toContain("Alpha &lt;GmbH&gt;");
    expect(html).toContain('"name":"Orders"');
    expect(html).toContain('"display_name":"Order day"');
    // A description cannot close the JSON's script element.
    expect(html).toContain("One row per order \\u003c/script>\\u003cb>");
    expect(html).not.toContain("</script><b>");
    expect(html).toContain('<script src="/report-builder.js"></script>');
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src http://api.test/report-builder.js;");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'none'");
    // Every URL in the page is this service's.
    for (const [, url] of html.matchAll(/(?:src|href)="([^"]*)"/g)) expect(url.startsWith("/")).toBe(true);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("speaks the view's language: the page's own words and the script's words from the catalogue of the token's locale", async () => {
    for (const [locale, language, dir] of [
      ["ja-JP", "ja", "ltr"],
      ["de-DE", "de", "ltr"],
      ["ar-EG", "ar", "rtl"],
    ] as const) {
      const html = (await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({ locale })}`)).body as string;
      const words = CATALOGUES[language];
      expect(html).toContain(`<html lang="${locale}" dir="${dir}"`);
      // Server-rendered: the status before the first result, the download buttons, the form's name.
      expect(html).toContain(`aria-live="polite">${escapeHtml(words["builder.loading"])}</p>`);
      expect(html).toContain(`id="rb-csv">${escapeHtml(words["builder.download_csv"])}</button>`);
      expect(html).toContain(`aria-label="${escapeHtml(words["builder.controls"])}"`);
      // The script's words: every `builder.*` entry of that catalogue, nothing of another language.
      const given = boot(html);
      expect(given.locale).toBe(locale);
      expect(given.words.add_filter).toBe(words["builder.add_filter"]);
      expect(given.words.group_by).toBe(words["builder.group_by"]);
      const keys = Object.keys(words).filter((k) => k.startsWith("builder."));
      expect(Object.keys(given.words).sort()).toEqual(keys.map((k) => k.slice(8)).sort());
      expect(given.words.add_filter).not.toBe(CATALOGUES.en["builder.add_filter"]);
    }
    // Control: a token in a language without a catalogue gets English.
    const html = (await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({ locale: "pt-BR" })}`)).body as string;
    expect(boot(html).words.add_filter).toBe(CATALOGUES.en["builder.add_filter"]);
    expect(html).toContain(`id="rb-csv">${CATALOGUES.en["builder.download_csv"]}</button>`);
  });

  it("tells the script whether saving is allowed and which filters are locked", async () => {
    const locked = [{ dataset: "Orders", column: "product", op: "eq", value: "Seats" }];
    const html = (
      await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({ can_save: false, filters: locked })}&report=abc`)
    ).body as string;
    expect(boot(html)).toMatchObject({ can_save: false, locked_filters: locked, report: "abc", reports: [] });
    const allowed = (await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({})}`)).body as string;
    expect(boot(allowed)).toMatchObject({ can_save: true, locked_filters: [], report: null });
  });

  it("starts with the blueprint's saved reports, newest first", async () => {
    const token = await mint({ user_id: "anna" });
    for (const name of ["First", "Second"]) {
      const saved = await call("POST", `/report-builder/${blueprint.embed_id}/reports`, {
        body: { name, query: bySum, chart: { type: "bar", x: "product", y: ["sum_amount"] } },
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(saved.status).toBe(200);
    }
    const html = (await call("GET", `/report-builder/${blueprint.embed_id}?token=${token}`)).body as string;
    expect(boot(html).reports.map((r: any) => r.name)).toEqual(["Second", "First"]);
    // Another customer's builder does not list them.
    const beta = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: "beta", blueprint_id: other.id } })
    ).body.token;
    expect(boot((await call("GET", `/report-builder/${other.embed_id}?token=${beta}`)).body as string).reports).toEqual([]);
  });

  it("is framed by the token's allowed_origins", async () => {
    const res = await call(
      "GET",
      `/report-builder/${blueprint.embed_id}?token=${await mint({ allowed_origins: ["https://app.example.com"] })}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Security-Policy")).toMatch(/frame-ancestors https:\/\/app\.example\.com$/);
  });

  it("answers a 401 page without data for a bad token, a dashboard's token or another blueprint's token", async () => {
    const dashboardToken = (
      await call("POST", "/api/generate_embed_token/", {
        token: ctx.write,
        body: { provided_id: "alpha", dashboard_embed_id: dashboardId },
      })
    ).body.token;
    const betaToken = (
      await call("POST", "/api/generate_embed_token/", { token: ctx.write, body: { provided_id: "beta", blueprint_id: other.id } })
    ).body.token;
    for (const token of ["not-a-token", dashboardToken, betaToken, ""]) {
      const res = await call("GET", `/report-builder/${blueprint.embed_id}?token=${token}`);
      expect(res.status, token).toBe(401);
      expect(res.body).toContain('data-status="401"');
      expect(res.body).not.toContain("Orders");
      expect(res.body).toContain('<script src="/report-builder.js"></script>'); // tells embed.js its status
    }
    // Control: the same page with its own token.
    expect((await call("GET", `/report-builder/${blueprint.embed_id}?token=${await mint({})}`)).status).toBe(200);
  });

  it("answers a 404 page for an unknown blueprint", async () => {
    const res = await call("GET", `/report-builder/no-such-blueprint?token=${await mint({})}`);
    expect(res.status).toBe(404);
    expect(res.body).toContain('data-status="404"');
  });
});

describe("GET /report-builder.js", () => {
  it("serves the page's script", async () => {
    const res = await call("GET", "/report-builder.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/javascript");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.body).toContain('var SOURCE = "report-builder"');
  });
});

describe("POST /report-builder/<embed_id>/view: a result with its chart in one round trip", () => {
  it("answers the query's result and the chart drawn by the dashboards' renderer", async () => {
    const token = await mint({});
    const res = await view(token, { query: bySum, chart: { type: "bar", x: "product", y: ["sum_amount"] }, width: 600 });
    expect(res.status).toBe(200);
    const query = await call("POST", `/report-builder/${blueprint.embed_id}/query`, {
      body: bySum,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(query.status).toBe(200);
    // The same result as the query endpoint: alpha's orders only.
    expect(res.body.rows).toEqual(query.body.rows);
    expect(res.body.rows).toEqual([
      { product: "Seats", sum_amount: 100 },
      { product: "Storage", sum_amount: 250 },
    ]);
    expect(res.body.columns.map((c: any) => c.display_name)).toEqual(["Product", "Sum of Amount"]);
    expect(res.body).toMatchObject({ row_count: 2, truncated: false });
    expect(res.body.chart_html).toContain('<section class="panel panel-bar"');
    expect(res.body.chart_html).toContain("<svg");
    expect(res.body.chart_html).toContain("Storage");
  });

  it("draws the chart in the token's theme (series, axis color, font); control: a token without one, the built-in colors", async () => {
    expect((await createTheme(ctx.write, { name: "Builder night", theme: { ...DARK, font_family: "Georgia, serif" } })).status).toBe(200);
    const chart = { type: "bar", x: "product", y: ["sum_amount"] };
    const themed = await view(await mint({ theme: "Builder night" }), { query: bySum, chart, width: 600 });
    expect(themed.status).toBe(200);
    expect(themed.body.chart_html).toMatch(/fill="#7c9cff"/);
    expect(themed.body.chart_html).not.toMatch(/fill="#4f46e5"/);
    expect(themed.body.chart_html).toContain("Georgia, serif");
    const plain = await view(await mint({}), { query: bySum, chart, width: 600 });
    expect(plain.body.chart_html).toMatch(/fill="#4f46e5"/);
    expect(plain.body.chart_html).not.toMatch(/fill="#7c9cff"/);
  });

  it("draws a KPI for a single value and nothing for a table (the page draws its own)", async () => {
    const token = await mint({});
    const kpiView = await view(token, {
      query: { dataset: "Orders", values: [{ aggregate: "count" }] },
      chart: { type: "kpi", y: ["count"] },
    });
    expect(kpiView.status).toBe(200);
    expect(kpiView.body.chart_html).toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?2</);
    const table = await view(token, { query: bySum, chart: { type: "table" } });
    expect(table.body.chart_html).toBe("");
    expect(table.body.rows).toHaveLength(2);
  });

  it("refuses a bad chart or width (400 with the field); nothing else changes", async () => {
    const token = await mint({});
    const badType = await view(token, { query: bySum, chart: { type: "donut" } });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatchObject({ code: "validation_error", field: "chart.type" });
    const badWidth = await view(token, { query: bySum, chart: { type: "bar" }, width: 10 });
    expect(badWidth.body.error).toMatchObject({ code: "validation_error", field: "width" });
    expect((await view(token, { query: bySum, chart: { type: "bar" }, width: 240 })).status).toBe(200);
  });

  it("answers the query's errors: 422 for an unknown column, 401 for a bad token", async () => {
    const token = await mint({});
    const unknown = await view(token, { query: { dataset: "Orders", group_by: [{ column: "region" }] }, chart: { type: "table" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_column", field: "group_by.0.column" });
    const refused = await view("not-a-token", { query: bySum, chart: { type: "table" } });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("invalid_embed_token");
  });
});
