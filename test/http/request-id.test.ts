// Every JSON error body carries error.request_id, the response's X-Request-Id (docs/api-contract.md):
// the theme files' 404 and 400 included, which the OpenAPI document declares as what they are.
import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

describe("request_id on every error", () => {
  it("a theme file that is not there (404) or not a SHA-256 (400) answers the error envelope with its request id", async () => {
    const missing = await call("GET", `/theme-assets/${"0".repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Content-Type")).toContain("application/json");
    expect(missing.body).toMatchObject({ success: 0, error: { code: "route_not_found", request_id: missing.headers.get("X-Request-Id") } });
    const malformed = await call("GET", "/theme-assets/not-a-hash");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({
      code: "validation_error",
      field: "sha256",
      request_id: malformed.headers.get("X-Request-Id"),
    });
    // Control: an unknown path answers the same envelope.
    const unknown = await call("GET", "/no-such-page");
    expect(unknown.body.error.request_id).toBe(unknown.headers.get("X-Request-Id"));
  });

  it("the OpenAPI document declares theme files as fonts and images, with only the errors they can answer", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    const operation = document.paths["/theme-assets/{sha256}"].get;
    expect(Object.keys(operation.responses["200"].content).sort()).toEqual(["font/woff2", "image/jpeg", "image/png", "image/webp"]);
    expect(Object.keys(operation.responses).sort()).toEqual(["200", "400", "404"]);
    expect(operation.parameters[0].schema.pattern).toBe("^[0-9a-f]{64}$");
  });
});
