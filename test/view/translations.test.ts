import { describe, expect, it } from "vitest";
import { NO_CUSTOMER } from "../../src/data/placeholders";
import type { Definition } from "../../src/dashboards/definition";
import { renderDashboard } from "../../src/dashboards/render";
import { resolvePresentation } from "../../src/view/presentation";
import { admin, dashboard, kpi, unique } from "../helpers/dashboards";

// The vendor's words: a definition's `translations`, looked up by exact locale, then language,
// then the definition's own text; checked when a version is saved.
async function schema(): Promise<number> {
  return (await admin("POST", "/admin/schemas/", { name: unique("sales") })).body.schema.id as number;
}

function definitionWith(schemaId: number, translations: unknown) {
  return {
    title: "Sales",
    variables: [{ name: "region", label: "Region", control: { type: "select", options: ["eu", "us"] } }],
    panels: [
      { ...kpi("revenue", schemaId, "SELECT 1 AS value"), title: "Revenue" },
      { id: "intro", type: "text", title: "About", text: "Hello", layout: { x: 0, y: 2, w: 6, h: 2 } },
      { ...kpi("rows", schemaId, "SELECT 1 AS amount"), type: "table", title: "Rows", layout: { x: 6, y: 2, w: 6, h: 3 } },
    ],
    translations,
  };
}

function draw(definition: unknown, locale: string): string {
  return renderDashboard({
    definition: definition as Definition,
    dashboardName: "Sales",
    context: { ...NO_CUSTOMER, variables: { region: "eu" } },
    isDemo: false,
    results: new Map([
      ["revenue", { status: "ok", rows: [{ value: 1 }], truncated: false }],
      ["rows", { status: "ok", rows: [{ amount: 2 }], truncated: false }],
    ]),
    interaction: { path: "/embed/x", query: {}, locked: [] },
    view: resolvePresentation({ locale }, [], []),
  });
}

describe("translations", () => {
  const translations = {
    de: { title: "Umsatz", "panels.revenue.title": "Erlös", "options.region.eu": "Europa", "columns.amount": "Betrag" },
    "de-CH": { title: "Umsatz (Schweiz)" },
    fr: { "panels.intro.text": "Bonjour", "variables.region.label": "Région" },
  };

  it("take the exact locale, then the language, then the definition's own text", () => {
    const def = definitionWith(1, translations);
    const swiss = draw(def, "de-CH");
    expect(swiss).toContain("<h1>Umsatz (Schweiz)</h1>"); // exact locale
    expect(swiss).toContain("<h2>Erlös</h2>"); // its language
    expect(swiss).toContain("<h2>About</h2>"); // own text: no translation
    expect(draw(def, "de-DE")).toContain("<h1>Umsatz</h1>");
    const french = draw(def, "fr-FR");
    expect(french).toContain("<p>Bonjour</p>");
    expect(french).toContain("<span>Région</span>");
    // Control: a locale with no entry keeps the definition's own words.
    const english = draw(def, "en-US");
    expect(english).toContain("<h1>Sales</h1>");
    expect(english).toContain("<h2>Revenue</h2>");
  });

  it("translate a select option's label only (the value sent stays) and table headers by columns.<name>", () => {
    const html = draw(definitionWith(1, translations), "de-DE");
    expect(html).toContain('<option value="eu" selected>Europa</option>');
    expect(html).toContain('<option value="us">us</option>');
    expect(html).toContain(">Betrag</th>");
    expect(draw(definitionWith(1, translations), "en-US")).toContain(">amount</th>");
  });

  it("naming a panel, variable or option that does not exist is 400 at definition.translations.<locale>.<key>; a valid set saves", async () => {
    const schemaId = await schema();
    const id = await dashboard({ panels: [kpi("k", schemaId, "SELECT 1 AS value")] });
    const cases: [Record<string, Record<string, string>>, string][] = [
      [{ de: { "panels.nope.title": "x" } }, "definition.translations.de.panels.nope.title"],
      [{ fr: { "variables.nope.label": "x" } }, "definition.translations.fr.variables.nope.label"],
      [{ de: { "options.region.asia": "Asien" } }, "definition.translations.de.options.region.asia"],
      [{ de: { "panels.revenue.text": "x" } }, "definition.translations.de.panels.revenue.text"],
      [{ de: { subtitle: "x" } }, "definition.translations.de.subtitle"],
      [{ "not a locale!": { title: "x" } }, "definition.translations.not a locale!"],
    ];
    for (const [bad, field] of cases) {
      const res = await admin("POST", "/admin/dashboard_versions/", { embed_id: id, definition: definitionWith(schemaId, bad) });
      expect(res.status, field).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field });
    }
    const saved = await admin("POST", "/admin/dashboard_versions/", { embed_id: id, definition: definitionWith(schemaId, translations) });
    expect(saved.status).toBe(200);
  });

  it("dashboard_checks with locales reports every text with no translation (what `dashboards validate --locales` prints)", async () => {
    const schemaId = await schema();
    const file = { embed_id: unique("d"), name: "Sales", definition: definitionWith(schemaId, translations) };
    const res = await admin("POST", "/admin/dashboard_checks/", { ...file, locales: ["de", "fr"] });
    expect(res.status).toBe(200);
    const fields = (res.body.problems as { field: string }[]).map((p) => p.field);
    expect(fields).toContain("definition.translations.de.panels.intro.title");
    expect(fields).toContain("definition.translations.de.options.region.us");
    expect(fields).toContain("definition.translations.fr.title");
    expect(fields).not.toContain("definition.translations.de.title");
    expect(fields).not.toContain("definition.translations.fr.panels.intro.text");
    // Control: without locales the same file is valid.
    const plain = await admin("POST", "/admin/dashboard_checks/", file);
    expect(plain.body).toMatchObject({ valid: true, problems: [] });
  });
});
