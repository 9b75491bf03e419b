import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";
import { createTheme, DARK } from "../helpers/themes";

// The admin operations the console calls besides those the CLI uses (docs/console.md): the
// customers of every access group, a dashboard's versions, the dashboards list's newest version
// and change time, previews in a chosen theme/locale/time zone, checks of a customer's locale.
let schema: number;
let demo: number;
let group: string;
let write: string;
let tag: string;

const kpi = () => ({
  id: "revenue",
  type: "kpi",
  title: "Revenue",
  schema_id: schema,
  sql: "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}",
  layout: { x: 0, y: 0, w: 4, h: 2 },
});

beforeAll(async () => {
  await seedOrders();
  ({ schema, demo } = await sources());
  ({ group, write } = await workspace());
  tag = unique("srch").replace(/-/g, "_");
  await createCustomer(write, { provided_id: `${tag}-alpha`, name: "Alpha GmbH", mapping: { [schema]: demo }, locale: "de-DE" });
  await createCustomer(write, { provided_id: `${tag}-beta`, name: `Beta ${tag} Ltd`, timezone: "Asia/Tokyo" });
  const other = await workspace();
  await createCustomer(other.write, { provided_id: `${tag}-gamma`, name: "Gamma SA" });
});

describe("GET /admin/customers/", () => {
  it("finds customers of every access group by a part of provided_id or name", async () => {
    const all = await admin("GET", `/admin/customers/?search=${tag}`);
    expect(all.status).toBe(200);
    expect(all.body.customers.map((c: any) => c.provided_id)).toEqual([`${tag}-alpha`, `${tag}-beta`, `${tag}-gamma`]);
    expect(all.body.customers[0]).toEqual({
      provided_id: `${tag}-alpha`,
      name: "Alpha GmbH",
      access_group: group,
      locale: "de-DE",
      timezone: null,
    });
    expect(all.body.total).toBe(3);
    const byName = await admin("GET", "/admin/customers/?search=alpha%20gmbh");
    expect(byName.body.customers.map((c: any) => c.provided_id)).toContain(`${tag}-alpha`);
    // `_` and `%` are matched as themselves, not as patterns.
    const literal = await admin("GET", `/admin/customers/?search=${encodeURIComponent(`${tag.slice(0, 6)}%`)}`);
    expect(literal.body.customers).toEqual([]);
    // `srch__`: as a pattern `_` would match the tag's own next character; as itself it matches no customer.
    const underscore = await admin("GET", `/admin/customers/?search=${encodeURIComponent(`${tag.slice(0, 5)}_`)}`);
    expect(underscore.body.customers).toEqual([]);
  });

  it("keeps one access group's customers and pages through them", async () => {
    const mine = await admin("GET", `/admin/customers/?access_group=${encodeURIComponent(group)}&limit=1`);
    expect(mine.body.customers.map((c: any) => c.provided_id)).toEqual([`${tag}-alpha`]);
    expect(mine.body.total).toBe(2);
    expect(mine.body.next_offset).toBe(1);
    const next = await admin("GET", `/admin/customers/?access_group=${encodeURIComponent(group)}&limit=1&offset=1`);
    expect(next.body.customers.map((c: any) => c.provided_id)).toEqual([`${tag}-beta`]);
    expect(next.body.next_offset).toBeNull();
  });

  it("is for the admin only (control: an API token is refused)", async () => {
    expect((await call("GET", "/admin/customers/", { token: write })).status).toBe(401);
    expect((await call("GET", "/admin/customers/?limit=1001", { admin: true })).status).toBe(400);
  });
});

describe("a dashboard's versions", () => {
  it("lists them newest first with draft, when saved and their tags; the list shows the newest and when it changed", async () => {
    const embedId = unique("hist");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "History" });
    const empty = await admin("GET", `/admin/dashboard_version_history/?embed_id=${embedId}`);
    expect(empty.body.versions).toEqual([]);
    await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: { panels: [kpi()] } });
    await admin("POST", "/admin/dashboard_versions/", {
      embed_id: embedId,
      definition: { panels: [{ ...kpi(), title: "Net" }] },
      draft: true,
    });
    await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag: "production", version_number: 1 });
    await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag: "email", version_number: 1 });
    const history = await admin("GET", `/admin/dashboard_version_history/?embed_id=${embedId}`);
    expect(history.status).toBe(200);
    expect(history.body.versions).toEqual([
      { version_number: 2, draft: true, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), tags: [] },
      { version_number: 1, draft: false, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), tags: ["email", "production"] },
    ]);
    const listed = (await admin("GET", "/admin/dashboards/")).body.dashboards.find((d: any) => d.embed_id === embedId);
    expect(listed).toMatchObject({ versions: 2, newest_version: 2, tags: { production: 1, email: 1 } });
    expect(Date.parse(listed.changed_at)).toBeGreaterThanOrEqual(Date.parse(history.body.versions[0].created_at));
    const missing = await admin("GET", `/admin/dashboard_version_history/?embed_id=${unique("none")}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("dashboard_not_found");
  });
});

describe("previews and checks for the console", () => {
  it("draws a preview in the customer's view by default, or in the theme, locale and time zone asked for", async () => {
    const themed = await createTheme(write, { name: "Console dark", theme: DARK });
    expect(themed.status).toBe(200);
    const body = { provided_id: `${tag}-alpha`, embed_id: "console-preview", definition: { panels: [kpi()] } };
    const own = await admin("POST", "/admin/dashboard_previews/", body);
    expect(own.status).toBe(200);
    expect(own.body.view).toEqual({ theme: null, locale: "de-DE", timezone: "UTC" });
    expect(own.body.themes).toEqual(["Console dark"]);
    const chosen = await admin("POST", "/admin/dashboard_previews/", {
      ...body,
      theme: "console DARK",
      locale: "fr-FR",
      timezone: "Asia/Tokyo",
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.view).toEqual({ theme: "Console dark", locale: "fr-FR", timezone: "Asia/Tokyo" });
    const page = await call("GET", chosen.body.preview_url.replace(/^https?:\/\/[^/]+/, ""));
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<html lang="fr-FR" dir="ltr" data-theme="Console dark" data-timezone="Asia\/Tokyo">/);
    // Control: the default preview is drawn in the customer's own locale.
    const plain = await call("GET", own.body.preview_url.replace(/^https?:\/\/[^/]+/, ""));
    expect(plain.body).toMatch(/<html lang="de-DE"/);
    const unknown = await admin("POST", "/admin/dashboard_previews/", { ...body, theme: "No such theme" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("unknown_theme");
  });

  it("checks a customer's computed locale against the translations with customer_locale (control: without it, none)", async () => {
    const file = {
      embed_id: "console-check",
      name: "Check",
      definition: { title: "Sales", panels: [kpi()], translations: { de: { title: "Umsatz" }, fr: { title: "Ventes" } } },
      provided_id: `${tag}-alpha`,
    };
    const asked = await admin("POST", "/admin/dashboard_checks/", { ...file, customer_locale: true });
    expect(asked.status).toBe(200);
    // Alpha (de-DE) has a German translation that lacks the panel's title.
    expect(asked.body.problems.map((p: any) => p.field)).toEqual(["definition.translations.de-DE.panels.revenue.title"]);
    // Control: a customer whose locale the definition is not translated into (Beta, en-US, no mapping) sees its own words.
    const beta = await admin("POST", "/admin/dashboard_checks/", { ...file, provided_id: `${tag}-beta`, customer_locale: true });
    expect(beta.body.problems.map((p: any) => p.field)).toEqual(["definition.panels.0.schema_id"]);
    const notAsked = await admin("POST", "/admin/dashboard_checks/", file);
    expect(notAsked.body.problems).toEqual([]);
    // A definition without translations speaks its own language to everyone: no problem.
    const untranslated = await admin("POST", "/admin/dashboard_checks/", {
      ...file,
      definition: { title: "Sales", panels: [kpi()] },
      customer_locale: true,
    });
    expect(untranslated.body.problems).toEqual([]);
  });
});
