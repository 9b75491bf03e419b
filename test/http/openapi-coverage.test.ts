import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

// The API explorer (/docs/explorer/) shows what /openapi.json declares, so every /api/
// operation must declare what it answers: a 200 with a schema, and its error responses in
// the one error envelope (docs/api-contract.md, "Errors").
describe("/openapi.json declares every /api/ operation's responses", async () => {
  const doc = (await call("GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  };
  const operations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/api/"))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );

  it("has /api/ operations to check", () => {
    expect(operations.length).toBeGreaterThan(20);
  });

  it.each(operations)("$name: a 200 with a schema, and error responses with the error envelope", ({ operation }) => {
    const ok = operation.responses["200"];
    expect(ok, "200").toBeTruthy();
    const okSchemas = Object.values(ok.content ?? {}).map((media) => media.schema);
    expect(okSchemas.length, "200 content").toBeGreaterThan(0);
    for (const schema of okSchemas) expect(schema, "200 schema").toBeTruthy();

    const errors = Object.entries(operation.responses).filter(([status]) => /^[45]\d\d$/.test(status));
    expect(
      errors.map(([status]) => status),
      "error responses",
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^4/)]));
    for (const [status, response] of errors) {
      const schema = response.content?.["application/json"]?.schema as { $ref?: string } | undefined;
      expect(schema?.$ref, `${status} schema`).toBe("#/components/schemas/Error");
    }
  });
});
