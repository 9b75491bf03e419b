import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, unique, workspace } from "../helpers/api";
import { sources } from "../helpers/dashboards";
import { customerWithBlueprint } from "../helpers/saved-reports";

/**
 * docs/api-contract.md: names, subjects, report names, file names, titles and user_id refuse the
 * controls that reorder what a reader sees (a file name "invoice\u202Egpj.exe" shows as
 * "invoiceexe.jpg"); the marks right-to-left text needs and the joiners stay allowed.
 */
const REORDERING = [
  ["U+202A LRE", "\u202a"],
  ["U+202B RLE", "\u202b"],
  ["U+202C PDF", "\u202c"],
  ["U+202D LRO", "\u202d"],
  ["U+202E RLO", "\u202e"],
  ["U+2066 LRI", "\u2066"],
  ["U+2067 RLI", "\u2067"],
  ["U+2068 FSI", "\u2068"],
  ["U+2069 PDI", "\u2069"],
  ["U+2028 line separator", "\u2028"],
  ["U+2029 paragraph separator", "\u2029"],
];
/** An Arabic company name with a right-to-left mark, an Arabic letter mark and both joiners. */
const ARABIC = "شركة\u200f الأمل\u061c للتجارة\u200c\u200d";

const text = { id: "t", type: "text", title: "Hi", text: "Hello", layout: { x: 0, y: 0, w: 12, h: 1 } };

describe("text that reorders what a reader sees is refused in names, subjects, titles, file names and user_id", () => {
  it.each(REORDERING)("refuses %s in a customer's name (400 validation_error on name, nothing stored)", async (_name, control) => {
    const { write } = await workspace();
    const providedId = unique("bidi");
    const res = await call("POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: providedId, name: `invoice${control}gpj.exe` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "name" });
    expect((await call("POST", "/api/get_customer/", { token: write, body: { provided_id: providedId } })).status).toBe(404);
  });

  it("refuses U+202E in every such field, each answered on its own field", async () => {
    const { write } = await workspace();
    const { schema, demo } = await sources();
    const owner = await customerWithBlueprint(write, unique("bidi-owner"), "Owner", schema, demo);
    const rlo = "report\u202etxt.exe";
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: owner.providedId, blueprint_id: owner.blueprintId },
    });
    expect(minted.status).toBe(200);
    const builder = { Authorization: `Bearer ${minted.body.token}` };
    const query = { dataset: "orders", columns: ["day"] };
    const embedId = unique("bidi-dash");
    expect((await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Plain" })).status).toBe(200);
    const delivery = { provided_id: owner.providedId, dashboard_embed_id: embedId, email: "a@b.example" };
    const cases: [string, string, Record<string, unknown>, string, Record<string, string>?][] = [
      ["token", "/api/create_customer/", { provided_id: `x${rlo}` }, "provided_id"],
      ["token", "/api/update_customer/", { provided_id: owner.providedId, name: rlo }, "name"],
      ["token", "/api/create_group_tag/", { name: rlo }, "name"],
      ["token", "/api/create_blueprint/", { customer_id: owner.providedId, blueprint_name: rlo, tables: [] }, "blueprint_name"],
      ["token", "/api/generate_embed_token/", { provided_id: owner.providedId, blueprint_id: owner.blueprintId, user_id: rlo }, "user_id"],
      ["token", "/api/dashboard/report", { ...delivery, subject: rlo }, "subject"],
      ["token", "/api/dashboard/screenshot", { ...delivery, download_file_name: rlo }, "download_file_name"],
      ["admin", "/admin/dashboards/", { embed_id: unique("bidi"), name: rlo }, "name"],
      ["admin", "/admin/dashboard_versions/", { embed_id: embedId, definition: { title: rlo, panels: [text] } }, "definition.title"],
      [
        "admin",
        "/admin/dashboard_versions/",
        { embed_id: embedId, definition: { panels: [{ ...text, title: rlo }] } },
        "definition.panels.0.title",
      ],
      [
        "admin",
        "/admin/dashboard_versions/",
        { embed_id: embedId, definition: { panels: [text], translations: { ar: { "panels.t.title": rlo } } } },
        "definition.translations.ar.panels.t.title",
      ],
      ["builder", `/report-builder/${owner.blueprintEmbedId}/reports`, { name: rlo, query, chart: { type: "table" } }, "name", builder],
      ["builder", `/report-builder/${owner.blueprintEmbedId}/export`, { query, format: "csv", file_name: rlo }, "file_name", builder],
    ];
    for (const [who, path, body, field, headers] of cases) {
      const res = await call("POST", path, {
        body,
        ...(who === "token" ? { token: write } : who === "admin" ? { admin: true } : { headers }),
      });
      expect(res.status, `${path} ${field}`).toBe(400);
      expect(res.body.error, `${path} ${field}`).toMatchObject({ code: "validation_error", field });
    }
  });

  it("accepts an Arabic name with U+200F, U+061C and the joiners, kept exactly (control)", async () => {
    const { write } = await workspace();
    const { schema, demo } = await sources();
    const created = await createCustomer(write, { provided_id: unique("arabic"), name: ARABIC });
    expect(created.name).toBe(ARABIC);
    const owner = await customerWithBlueprint(write, unique("arabic-owner"), ARABIC, schema, demo);
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: owner.providedId, blueprint_id: owner.blueprintId, user_id: "user\u200e-7" },
    });
    expect(minted.status).toBe(200);
    const saved = await call("POST", `/report-builder/${owner.blueprintEmbedId}/reports`, {
      body: { name: `تقرير\u200f ${ARABIC}`, query: { dataset: "orders", columns: ["day"] }, chart: { type: "table" } },
      headers: { Authorization: `Bearer ${minted.body.token}` },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.report).toMatchObject({ name: `تقرير\u200f ${ARABIC}`, created_by: "user\u200e-7" });
    const embedId = unique("arabic-dash");
    expect((await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: ARABIC })).status).toBe(200);
    const version = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: { title: ARABIC, panels: [text] } });
    expect(version.status).toBe(200);
  });
});
