import { beforeAll, describe, expect, it } from "vitest";
import { admin, bindings, call, createCustomer, dashboard, kpi, panelText, seedOrders, sources, unique, workspace } from "./helpers";

// Filter controls, per-panel CSV and the page width (docs/embedding.md, "Responsive layout",
// "Filter controls" and "CSV export").
let ctx: { write: string; schema: number; demo: number; other: number };
let alpha: { provided_id: string; token: string };
let beta: { provided_id: string; token: string };
let embedId: string;

const sinceKpi = (schema: number) =>
  kpi("since", schema, "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}");

beforeAll(async () => {
  await seedOrders();
  const { write } = await workspace();
  ctx = { write, ...(await sources()) };
  alpha = await createCustomer(write, { provided_id: "alpha", mapping: { [ctx.schema]: ctx.demo } });
  beta = await createCustomer(write, { provided_id: "beta", mapping: { [ctx.schema]: ctx.demo } });
  embedId = await dashboard(
    {
      variables: [
        { name: "since", default: "2026-01-01", control: { type: "date", label: "From day" } },
        { name: "product", default: "All", control: { type: "select", options: ["All", "Seats", "Storage"] } },
        { name: "note", default: "x" },
      ],
      panels: [
        { id: "intro", type: "text", title: "Intro", text: "Since {{variables.since}}", layout: { x: 0, y: 0, w: 12, h: 1 } },
        sinceKpi(ctx.schema),
        {
          id: "rows",
          type: "table",
          title: "Rows",
          schema_id: ctx.schema,
          sql: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}} AND ({{variables.product}} = 'All' OR product = {{variables.product}}) ORDER BY day",
          layout: { x: 3, y: 0, w: 9, h: 4 },
        },
      ],
    },
    ["production"],
  );
});

const page = (query: string) => call("GET", `/embed/${embedId}?${query}`);

function formFields(html: string): Record<string, string> {
  const form = html.match(/<form class="controls"[\s\S]*?<\/form>/)?.[0] ?? "";
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="(?:hidden|date|text)" name="([^"]+)"(?: id="[^"]+")? value="([^"]*)"/g)) fields[m[1]] = m[2];
  const select = form.match(/<select name="([^"]+)"[\s\S]*?<\/select>/);
  if (select) fields[select[1]] = select[0].match(/<option value="([^"]*)" selected>/)?.[1] ?? "";
  return fields;
}

describe("filter controls", () => {
  it("show a GET form whose fields and values reflect the variables", async () => {
    const res = await page(`customer_token=${alpha.token}&var_since=2026-02-01&var_note=kept&width=900`);
    const html: string = res.body;
    expect(html).toMatch(new RegExp(`<form class="controls" method="get" action="/embed/${embedId}">`));
    expect(html).toContain('<input type="date" name="var_since" id="var_since" value="2026-02-01">');
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
    const versions = await bindings.DB.prepare("SELECT COUNT(*) AS n FROM dashboard_versions v JOIN dashboards d ON d.id = v.dashboard_id WHERE d.embed_id = ?").bind(id).first<{ n: number }>();
    expect(versions?.n).toBe(1);
  });
});

describe("the page width", () => {
  it("draws charts for their panel's pixel size at that width and stacks below 640 px in reading order", async () => {
    const charts = await dashboard({
      panels: [
        { id: "right", type: "bar", title: "Right", schema_id: ctx.schema, sql: "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month", x_column: "month", y_columns: ["revenue"], layout: { x: 6, y: 0, w: 6, h: 4 } },
        { id: "left", type: "bar", title: "Left", schema_id: ctx.schema, sql: "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month", x_column: "month", y_columns: ["revenue"], layout: { x: 0, y: 0, w: 6, h: 4 } },
        { id: "below", type: "pie", title: "Below", schema_id: ctx.schema, sql: "SELECT product, SUM(amount) AS revenue FROM orders GROUP BY product", label_column: "product", value_column: "revenue", layout: { x: 0, y: 4, w: 12, h: 4 } },
      ],
    });
    const viewBoxes = async (width: number) => {
      const html: string = (await call("GET", `/embed/${charts}?customer_token=${alpha.token}&width=${width}`)).body;
      const order = [...html.matchAll(/data-panel-id="([^"]+)"/g)].map((m) => m[1]);
      const boxes = [...html.matchAll(/viewBox="0 0 (\d+) (\d+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
      return { html, order, boxes };
    };
    const wide = await viewBoxes(1280);
    // 1200 px of content, 12 columns with 16 px gaps: w=6 → 592 px, minus 32 padding and 2 border.
    expect(wide.boxes[0][0]).toBe(558);
    expect(wide.boxes[2][0]).toBe(1200 - 34);
    expect(wide.html).not.toContain('class="dashboard stacked"');
    const tablet = await viewBoxes(768);
    expect(tablet.boxes[0][0]).toBe(Math.floor(((768 - 32 - 176) / 12) * 6 + 80 - 34));
    const phone = await viewBoxes(360);
    expect(phone.html).toContain('class="dashboard stacked"');
    expect(phone.order).toEqual(["left", "right", "below"]);
    expect(phone.boxes.map((b) => b[0])).toEqual([360 - 24 - 34, 360 - 24 - 34, 360 - 24 - 34]);
    // Out of range widths are clamped to 320–4096; nonsense is the default 1280.
    expect((await viewBoxes(100)).boxes[0][0]).toBe(320 - 24 - 34);
    expect((await viewBoxes(Number.NaN)).boxes[0][0]).toBe(558);
  });

  it("marks a page drawn without a width (or with nonsense) to fit the window it is opened in, and only that page", async () => {
    const html = async (query: string): Promise<string> => (await call("GET", `/embed/${embedId}?customer_token=${alpha.token}${query}`)).body;
    const fits = /<main class="dashboard[^"]*"[^>]* data-width="1280" data-fit-window="1232">/;
    expect(await html("")).toMatch(fits);
    expect(await html("&width=wide")).toMatch(fits);
    for (const width of ["1280", "360", "100"]) expect(await html(`&width=${width}`)).toMatch(/<main [^>]*data-width="\d+">/);
  });
});

describe("GET /embed/<id>/panels/<panel>.csv", () => {
  const csv = (panel: string, query: string) => call("GET", `/embed/${embedId}/panels/${panel}.csv?${query}`);

  it("answers the panel's rows as RFC 4180 CSV with a header row", async () => {
    const res = await csv("rows", `customer_token=${alpha.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="rows.csv"');
    expect(res.body).toBe("day,product,amount\r\n2026-01-05,Seats,100\r\n2026-02-05,Storage,250\r\n");
  });

  it("is linked from every data panel with the page's credential and variables (not from text panels)", async () => {
    const html: string = (await page(`customer_token=${alpha.token}&var_since=2026-02-01&width=700`)).body;
    const links = [...html.matchAll(/<a class="csv" data-embed-link href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, "&"));
    expect(links).toHaveLength(2);
    expect(links).toContain(`/embed/${embedId}/panels/rows.csv?customer_token=${alpha.token}&var_since=2026-02-01`);
    const followed = await call("GET", links.find((l) => l.includes("rows.csv"))!);
    expect(followed.body).toBe("day,product,amount\r\n2026-02-05,Storage,250\r\n");
  });

  it("quotes commas, quotes, line breaks; keeps unicode; neutralises formulas in text but not numbers", async () => {
    const tricky = await dashboard({
      panels: [
        kpi(
          "tricky",
          ctx.schema,
          `SELECT 'a,b' AS comma, 'say "hi"' AS quote, 'line1' || char(10) || 'line2' AS lines, 'Zürich – 東京 😀' AS unicode,
                  '=1+2' AS eq, '+1' AS plus, '-1' AS minus, '@SUM(A1)' AS at, char(9) || 'tab' AS tab, char(13) || 'cr' AS cr,
                  -5 AS negative, 3.25 AS decimal, NULL AS empty`,
        ),
      ],
    });
    const res = await call("GET", `/embed/${tricky}/panels/tricky.csv?customer_token=${alpha.token}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [header, row, end] = res.body.split("\r\n");
    expect(header).toBe("comma,quote,lines,unicode,eq,plus,minus,at,tab,cr,negative,decimal,empty");
    expect(end).toBe("");
    expect(row).toBe(`"a,b","say ""hi""","line1\nline2",Zürich – 東京 😀,"'=1+2","'+1","'-1","'@SUM(A1)","'\ttab","'\rcr",-5,3.25,`);
  });

  it("prefixes a formula whatever follows its first character, line breaks included; a line break later is only quoted (the control)", async () => {
    const multiline = await dashboard({
      panels: [
        kpi(
          "multiline",
          ctx.schema,
          `SELECT '=HYPERLINK("http://evil.example")' || char(10) || 'x' AS eq_lf, '+1' || char(13) || char(10) || '2' AS plus_crlf,
                  '-' || char(10) AS minus_lf, '@A1' || char(10) || char(10) || '=B2' AS at_lines, char(9) || char(10) || 'tab' AS tab_lf,
                  'fine' || char(10) || '=not a formula' AS later`,
        ),
      ],
    });
    const res = await call("GET", `/embed/${multiline}/panels/multiline.csv?customer_token=${alpha.token}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as string;
    expect(body.startsWith("eq_lf,plus_crlf,minus_lf,at_lines,tab_lf,later\r\n")).toBe(true);
    const row = body.slice(body.indexOf("\r\n") + 2);
    expect(row).toBe(`"'=HYPERLINK(""http://evil.example"")\nx","'+1\r\n2","'-\n","'@A1\n\n=B2","'\t\ntab","fine\n=not a formula"\r\n`);
  });

  it("shows each customer only its own rows, honouring var_ and environment", async () => {
    expect((await csv("rows", `customer_token=${beta.token}`)).body).toBe("day,product,amount\r\n2026-01-07,Seats,7\r\n2026-03-01,Support,3\r\n");
    expect((await csv("rows", `customer_token=${beta.token}&var_since=2026-02-01`)).body).toBe("day,product,amount\r\n2026-03-01,Support,3\r\n");
    expect((await csv("rows", `customer_token=${alpha.token}&var_product=Seats`)).body).toBe("day,product,amount\r\n2026-01-05,Seats,100\r\n");
    const missing = await csv("rows", `customer_token=${alpha.token}&environment=staging`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("dashboard_version_not_found");
    expect((await csv("rows", `customer_token=${alpha.token}&environment=production`)).status).toBe(200);
  });

  it("takes signed tokens with their locked variables", async () => {
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: "alpha", dashboard_embed_id: embedId, variables: { since: "2026-02-01" } },
    });
    const res = await csv("rows", `token=${minted.body.token}&var_since=2026-01-01`);
    expect(res.body).toBe("day,product,amount\r\n2026-02-05,Storage,250\r\n");
  });

  it("answers 404 panel_not_found for a text or unknown panel, in the JSON envelope", async () => {
    for (const panel of ["intro", "nope"]) {
      const res = await csv(panel, `customer_token=${alpha.token}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: 0, error: { code: "panel_not_found" } });
    }
    expect((await call("GET", `/embed/${embedId}/panels/rows.json?customer_token=${alpha.token}`)).status).toBe(404);
  });

  it("answers 401 without data like the page: bad, refreshed or deleted tokens", async () => {
    const viewer = await createCustomer(ctx.write, { provided_id: unique("viewer"), mapping: { [ctx.schema]: ctx.demo } });
    expect((await csv("since", `customer_token=${viewer.token}`)).status).toBe(200);
    for (const query of ["", "customer_token=" + "f".repeat(64), "token=not.a.token"]) {
      const res = await csv("rows", query);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_embed_token");
      expect(JSON.stringify(res.body)).not.toContain("Storage");
    }
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: viewer.token } });
    expect((await csv("since", `customer_token=${viewer.token}`)).status).toBe(401);
    await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: refreshed.body.customer.token } });
    expect((await csv("since", `customer_token=${refreshed.body.customer.token}`)).status).toBe(401);
  });

  it("answers 422 panel_data_unavailable when the customer has no data source for the panel", async () => {
    const unmapped = await createCustomer(ctx.write, { provided_id: unique("unmapped") });
    const res = await csv("rows", `customer_token=${unmapped.token}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("panel_data_unavailable");
  });

  it("is in /openapi.json", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const operation = doc.paths["/embed/{embedId}/panels/{panelFile}"].get;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "401", "404", "422"]));
    expect(operation.responses["200"].content).toHaveProperty("text/csv");
  });
});
