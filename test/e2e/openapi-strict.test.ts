// The OpenAPI document as strict as the server (docs/api-contract.md): a client validating
// request bodies against /openapi.json (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it)
// refuses what the server refuses — mapping keys that are not schema ids, neither or both of an
// exclusive pair, base64 that atob cannot decode, translation keys that are not BCP 47 — and
// accepts what it accepts, `locale: null` where null clears it. The
// server's own answers to the same bodies are tested with the operations (test/customers,
// test/delivery, test/embed-tokens); the document is built in process (scripts/openapi-document.mjs).
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import sales from "../../examples/dashboards/sales.json";
import { openApiDocument } from "../../scripts/openapi-document.mjs";

type Document = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  components: { schemas: Record<string, unknown> };
};
let accepts: (path: string, body: unknown) => boolean;

beforeAll(async () => {
  const document = (await openApiDocument()) as unknown as Document;
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  // The components, under the $ref the operations use.
  ajv.addSchema({ $id: "openapi", components: document.components });
  const validators = new Map<string, (body: unknown) => boolean>();
  accepts = (path, body) => {
    let validate = validators.get(path);
    if (!validate) {
      const schema = JSON.parse(
        JSON.stringify(document.paths[path].post.requestBody?.content["application/json"].schema).replaceAll(
          '"#/components/',
          '"openapi#/components/',
        ),
      );
      validate = ajv.compile(schema) as (body: unknown) => boolean;
      validators.set(path, validate);
    }
    return validate(body);
  };
}, 120_000);

describe("a client generated from /openapi.json refuses what the server refuses", () => {
  it("mapping keys are schema ids (digit strings)", () => {
    expect(accepts("/api/create_customer/", { provided_id: "a", mapping: { "1": "demo" } })).toBe(true);
    expect(accepts("/api/create_customer/", { provided_id: "a", mapping: { sales: "demo" } })).toBe(false);
    expect(accepts("/api/update_customer/", { provided_id: "a", mapping: { "1x": 2 } })).toBe(false);
  });

  it("exclusive pairs: exactly one of dashboard_embed_id and report_id (or blueprint_id)", () => {
    const base = { provided_id: "acme" };
    expect(accepts("/api/dashboard/screenshot", { ...base, dashboard_embed_id: "sales" })).toBe(true);
    expect(accepts("/api/dashboard/screenshot", { ...base, report_id: "r1" })).toBe(true);
    expect(accepts("/api/dashboard/screenshot", base)).toBe(false);
    expect(accepts("/api/dashboard/screenshot", { ...base, dashboard_embed_id: "sales", report_id: "r1" })).toBe(false);
    expect(accepts("/api/dashboard/report", { ...base, email: "a@b.example", dashboard_embed_id: "sales", report_id: "r1" })).toBe(false);
    expect(accepts("/api/generate_embed_token/", { ...base, dashboard_embed_id: "sales" })).toBe(true);
    expect(accepts("/api/generate_embed_token/", { ...base, blueprint_id: 7 })).toBe(true);
    expect(accepts("/api/generate_embed_token/", { ...base, dashboard_embed_id: "sales", blueprint_id: 7 })).toBe(false);
    expect(accepts("/api/generate_embed_token/", base)).toBe(false);
  });

  it("accepts locale and timezone null where null clears them (as the server does), not where it does not", () => {
    expect(accepts("/api/update_customer/", { provided_id: "a", locale: null, timezone: null })).toBe(true);
    expect(accepts("/api/create_customer/", { provided_id: "a", locale: null })).toBe(true);
    expect(accepts("/api/update_report_schedule/", { id: "sch_1", locale: null })).toBe(true);
    expect(accepts("/api/update_alert/", { id: "alr_1", locale: null })).toBe(true);
    // Control: a delivery's own locale is a language or absent, never null.
    expect(accepts("/api/dashboard/screenshot", { provided_id: "acme", dashboard_embed_id: "sales", locale: null })).toBe(false);
  });

  it("base64 fields: the groups atob decodes, nothing else (logo_base64, woff2_base64)", () => {
    const theme = (extra: object) => ({ name: "Acme", theme: extra });
    const font = (woff2_base64: string) => theme({ fonts: [{ family: "Acme Sans", woff2_base64 }] });
    // Accepted controls: whole groups, a last group of 2 or 3 padded or not.
    for (const text of ["iVBORw0K", "iVBORw0KGg==", "iVBORw0KGg", "iVBORw0KGgo=", "iVBORw0KGgo", "d09GMg+/"]) {
      expect(accepts("/api/create_theme/", theme({ logo_base64: text })), text).toBe(true);
    }
    expect(accepts("/api/create_theme/", font("d09GMgABAAA="))).toBe(true);
    // Refused, as the server refuses them (400 "must be base64"): a lone last character, padding
    // where it cannot be, characters outside the alphabet, URL-safe base64, blanks.
    for (const text of ["iVBORw0KG", "iVBORw0K==", "iVBO=w0K", "iVBORw0KGg=", "iVBORw0_", "iVBO-w0K", "iVBO Rw0K"]) {
      expect(accepts("/api/create_theme/", theme({ logo_base64: text })), text).toBe(false);
    }
    expect(accepts("/api/create_theme/", font("d09GMgABAAA=A"))).toBe(false);
    expect(accepts("/api/update_theme/", { name: "Acme", theme: { logo_base64: "not base64!" } })).toBe(false);
  });

  it("the keys of translations are BCP 47 locales or languages (blueprint tables, dashboard definitions)", () => {
    const table = (translations: object) => ({
      customer_id: "acme",
      blueprint_name: "Sales",
      tables: [{ table_name: "orders", schema_id: 1, columns: [{ name: "total", type: "FLOAT" }], translations }],
    });
    const version = (translations: object) => ({ embed_id: "sales", definition: { ...sales.definition, translations } });
    for (const key of ["de", "de-CH", "de-ch", "zh-Hant-TW", "es-419", "de-CH-1996", "en-u-ca-gregory", "en-US-x-private"]) {
      expect(accepts("/api/create_blueprint/", table({ [key]: { dataset_name: "Bestellungen" } })), key).toBe(true);
      expect(accepts("/admin/dashboard_versions/", version({ [key]: { title: "Umsatz" } })), key).toBe(true);
    }
    // What Intl.getCanonicalLocales refuses (the server's 400 "is not a BCP 47 locale or language").
    for (const key of ["de_CH", "German language", "d", "de-", "de--CH", "en-12", "x-private", "i-klingon", "root", "abcdefghi"]) {
      expect(accepts("/api/create_blueprint/", table({ [key]: { dataset_name: "Bestellungen" } })), key).toBe(false);
      expect(accepts("/admin/dashboard_versions/", version({ [key]: { title: "Umsatz" } })), key).toBe(false);
    }
    expect(accepts("/api/update_blueprint/", { blueprint_id: 1, tables: table({ "de-DE": {} }).tables })).toBe(true);
    expect(accepts("/api/update_blueprint/", { blueprint_id: 1, tables: table({ de_DE: {} }).tables })).toBe(false);
  });
});
