// The OpenAPI document as strict as the server (docs/api-contract.md): a client validating
// request bodies against /openapi.json (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it)
// refuses what the server refuses — mapping keys that are not schema ids, neither or both of an
// exclusive pair — and accepts what it accepts, `locale: null` where null clears it. The
// server's own answers to the same bodies are tested with the operations (test/customers,
// test/delivery, test/embed-tokens); the document is built in process (scripts/openapi-document.mjs).
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
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
});
