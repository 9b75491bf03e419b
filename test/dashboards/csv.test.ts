import { beforeAll, describe, expect, it } from "vitest";
import { controlsDashboard, embedPage, type ControlsDashboard } from "./controls-fixture";
import { call, createCustomer, dashboard, kpi, unique } from "../helpers/dashboards";

// Per-panel CSV (docs/embedding.md, "CSV export").
let ctx: ControlsDashboard["ctx"];
let alpha: ControlsDashboard["alpha"];
let beta: ControlsDashboard["beta"];
let embedId: string;

beforeAll(async () => {
  ({ ctx, alpha, beta, embedId } = await controlsDashboard());
});

const page = (query: string) => embedPage(embedId, query);

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
    expect((await csv("rows", `customer_token=${beta.token}`)).body).toBe(
      "day,product,amount\r\n2026-01-07,Seats,7\r\n2026-03-01,Support,3\r\n",
    );
    expect((await csv("rows", `customer_token=${beta.token}&var_since=2026-02-01`)).body).toBe(
      "day,product,amount\r\n2026-03-01,Support,3\r\n",
    );
    expect((await csv("rows", `customer_token=${alpha.token}&var_product=Seats`)).body).toBe(
      "day,product,amount\r\n2026-01-05,Seats,100\r\n",
    );
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
    for (const query of ["", `customer_token=${"f".repeat(64)}`, "token=not.a.token"]) {
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
