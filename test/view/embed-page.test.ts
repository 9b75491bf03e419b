import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, dashboard, seedOrders, sources, unique, workspace } from "../helpers/dashboards";
import { base64, createTheme, DARK, PNG_1PX, woff2Bytes } from "../helpers/themes";
import { renderDashboard } from "../../src/dashboards/render";
import { BUILTIN_DOCUMENT, BUILTIN_PRESENTATION } from "../../src/view/presentation";

// The presentation resolved for a view and worn by the embed page: `<html>` attributes, the
// theme's custom properties and fonts, the logo, the chart series.
let ctx: { write: string; read: string; customer: string; embedId: string };

beforeAll(async () => {
  await seedOrders();
  const { write, read } = await workspace();
  const { schema, demo } = await sources();
  const customer = unique("themed");
  await createCustomer(write, { provided_id: customer, mapping: { [schema]: demo }, locale: "de-DE", timezone: "Europe/Berlin" });
  const embedId = await dashboard({
    panels: [
      {
        id: "by_month",
        type: "bar",
        title: "Revenue",
        schema_id: schema,
        sql: "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month ORDER BY month",
        x_column: "month",
        y_columns: ["revenue"],
        layout: { x: 0, y: 0, w: 12, h: 4 },
      },
    ],
  });
  ctx = { write, read, customer, embedId };
  const night = await createTheme(write, {
    name: "Night",
    theme: {
      ...DARK,
      fonts: [{ family: "Acme Sans", woff2_base64: base64(woff2Bytes(10)) }],
      logo_base64: base64(PNG_1PX),
      font_family: '"Acme Sans", sans-serif',
    },
  });
  expect(night.status).toBe(200);
});

function mint(body: Record<string, unknown> = {}) {
  return call("POST", "/api/generate_embed_token/", {
    token: ctx.read,
    body: { provided_id: ctx.customer, dashboard_embed_id: ctx.embedId, ...body },
  });
}

async function page(body: Record<string, unknown> = {}) {
  const minted = await mint(body);
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  return call<string>("GET", new URL(minted.body.embed_url).pathname + new URL(minted.body.embed_url).search);
}

describe("the embed page in its presentation", () => {
  it("wears the customer's computed locale and zone and the built-in theme when nothing names a theme", async () => {
    const res = await page();
    expect(res.body).toContain('<html lang="de-DE" dir="ltr" data-theme="builtin" data-timezone="Europe/Berlin">');
    // The built-in series color on the first bar.
    expect(res.body).toMatch(/fill="#4f46e5"/);
    expect(res.headers.get("Content-Security-Policy")).toContain("font-src 'self' data:");
    expect(res.headers.get("Content-Security-Policy")).toContain("img-src 'self' data:");
  });

  it("takes the token's theme, locale and zone over the customer's: colors, font, logo and the first series", async () => {
    const res = await page({ theme: "night", locale: "ar-eg", timezone: "Asia/Tokyo" });
    expect(res.body).toContain('<html lang="ar-EG" dir="rtl" data-theme="Night" data-timezone="Asia/Tokyo">');
    expect(res.body).toContain("--cd-bg:#0b1020;--cd-surface:#141a2e;--cd-text:#e8ecf8");
    expect(res.body).toMatch(/@font-face\{font-family:"Acme Sans";src:url\(\/theme-assets\/[0-9a-f]{64}\) format\("woff2"\)/);
    // A live page shows its text at once (in the next font of the list until the theme's is in);
    // what a capture draws waits for the font (`block`: the capture loads every face first).
    expect(res.body).toMatch(/@font-face\{font-family:"Acme Sans";[^}]*;font-display:swap\}/);
    expect(res.body).toMatch(/<img class="cd-logo" src="\/theme-assets\/[0-9a-f]{64}"/);
    expect(res.body).toMatch(/fill="#7c9cff"/);
    expect(res.body).not.toMatch(/fill="#4f46e5"/);
  });

  it("uses the customer's theme, else the access group's default", async () => {
    await createTheme(ctx.write, { name: "Brand", theme: { colors: { series: ["#b91c1c"] } }, is_default: true });
    expect((await page()).body).toContain('data-theme="Brand"');
    await call("POST", "/api/update_customer/", { token: ctx.write, body: { provided_id: ctx.customer, theme: "Night" } });
    const own = await page();
    expect(own.body).toContain('data-theme="Night"');
    await call("POST", "/api/update_customer/", { token: ctx.write, body: { provided_id: ctx.customer, theme: null } });
    expect((await page()).body).toMatch(/fill="#b91c1c"/);
  });

  it("refuses a token naming an unknown theme (422) or a malformed locale or zone (400), with passing controls", async () => {
    const unknown = await mint({ theme: "Daylight" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_theme", field: "theme" });
    const locale = await mint({ locale: "12-not" });
    expect(locale.status).toBe(400);
    expect(locale.body.error).toMatchObject({ code: "validation_error", field: "locale" });
    const zone = await mint({ timezone: "Europe/Nowhere" });
    expect(zone.status).toBe(400);
    expect(zone.body.error).toMatchObject({ code: "validation_error", field: "timezone" });
    expect((await mint({ theme: "NIGHT", locale: "fr-ch", timezone: "UTC" })).status).toBe(200);
    // Another access group's theme is unknown to this one.
    const other = await workspace();
    await createTheme(other.write, { name: "Theirs", theme: {} });
    expect((await mint({ theme: "Theirs" })).body.error.code).toBe("unknown_theme");
    // The report builder's tokens take the same fields.
    const builder = await call("POST", "/api/generate_embed_token/", {
      token: ctx.read,
      body: { provided_id: ctx.customer, blueprint_id: 999999, theme: "Daylight" },
    });
    expect(builder.status).not.toBe(200);
  });
});

describe("a theme's fonts while they load", () => {
  it("swap on the live page (its text shows at once), block where a capture draws it (the capture waits for every face)", () => {
    const document = {
      ...BUILTIN_DOCUMENT,
      fonts: [{ family: "Acme Sans", weight: 400, style: "normal" as const, sha256: "a".repeat(64) }],
    };
    const draw = (interaction?: { path: string; query: Record<string, string>; locked: string[]; clicks: boolean }) =>
      renderDashboard({
        definition: { variables: [], panels: [] },
        dashboardName: "Fonts",
        context: { customer: { provided_id: "x", name: "X" }, variables: {} } as never,
        isDemo: false,
        results: new Map(),
        view: { ...BUILTIN_PRESENTATION, theme: { name: "Acme", document } },
        interaction,
      });
    const face = (html: string) => /@font-face\{font-family:"Acme Sans";[^}]*\}/.exec(html)?.[0];
    expect(face(draw())).toContain("font-display:block");
    expect(face(draw({ path: "/embed/fonts", query: {}, locked: [], clicks: true }))).toContain("font-display:swap");
  });
});
