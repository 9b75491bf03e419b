import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { call, workspace } from "../helpers/api";

/** A POST whose body arrives in pieces, with no Content-Length. */
async function sendStreamed(path: string, token: string, pieces: string[]): Promise<Response> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  const request = new Request(`http://api.test${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${token}`, "Content-Type": "application/json" },
    body,
  });
  expect(request.headers.get("Content-Length")).toBeNull();
  return (exports as any).default.fetch(request);
}

describe("HTTP conventions", () => {
  it("serves a path with and without its trailing slash", async () => {
    const { write } = await workspace();
    await call("POST", "/api/create_customer/", { token: write, body: { provided_id: "slash-test" } });
    const withSlash = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: "slash-test" } });
    const without = await call("POST", "/api/get_customer", { token: write, body: { provided_id: "slash-test" } });
    expect(withSlash.status).toBe(200);
    expect(without.status).toBe(200);
    expect(without.body.customer).toEqual(withSlash.body.customer);
  });

  it("rejects a body that is not JSON (400 invalid_json)", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", {
      token: write,
      rawBody: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: 0, error: { code: "invalid_json" } });
  });

  it("rejects a JSON body that is not an object (400 invalid_json)", async () => {
    const { write } = await workspace();
    for (const raw of ["[1,2]", '"text"', "null", "42"]) {
      const res = await call("POST", "/api/create_customer/", {
        token: write,
        rawBody: raw,
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status, raw).toBe(400);
      expect(res.body.error.code).toBe("invalid_json");
    }
  });

  it("rejects a body of another media type (415 unsupported_media_type)", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", {
      token: write,
      rawBody: "provided_id=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe("unsupported_media_type");
  });

  it("rejects a body over 1 MiB (413 payload_too_large) and stores nothing", async () => {
    const { write } = await workspace();
    const big = { provided_id: "too-big", properties: { blob: "x".repeat(1024 * 1024) } };
    const res = await call("POST", "/api/create_customer/", { token: write, body: big });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    const got = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: "too-big" } });
    expect(got.status).toBe(404);
  });

  it("reads a body whether its length is declared (Content-Length) or it is streamed without one", async () => {
    const { write } = await workspace();
    await call("POST", "/api/create_customer/", { token: write, body: { provided_id: "body-length" } });
    const text = JSON.stringify({ provided_id: "body-length" });
    const declared = await call("POST", "/api/get_customer/", {
      token: write,
      rawBody: text,
      headers: { "Content-Type": "application/json", "Content-Length": String(new TextEncoder().encode(text).byteLength) },
    });
    const streamed = await sendStreamed("/api/get_customer/", write, [text.slice(0, 5), text.slice(5)]);
    expect(declared.status).toBe(200);
    expect(streamed.status).toBe(200);
    expect((await streamed.json<any>()).customer.provided_id).toBe("body-length");
  });

  it("refuses a streamed body over 1 MiB without Content-Length (413 payload_too_large) and stores nothing", async () => {
    const { write } = await workspace();
    const head = '{"provided_id":"streamed-too-big","properties":{"blob":"';
    const chunk = "x".repeat(256 * 1024);
    const res = await sendStreamed("/api/create_customer/", write, [head, chunk, chunk, chunk, chunk, '"}}']);
    expect(res.status).toBe(413);
    expect((await res.json<any>()).error.code).toBe("payload_too_large");
    const got = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: "streamed-too-big" } });
    expect(got.status).toBe(404);
  });

  it("names a missing field (400 validation_error with field)", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", { token: write, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "provided_id" });
    expect(typeof res.body.error.message).toBe("string");
    expect(typeof res.body.error.request_id).toBe("string");
  });

  it("treats a request without a body as an empty object", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", { token: write });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "provided_id" });
  });

  it("ignores unknown request fields", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: "unknown-fields", colour: "blue" } });
    expect(res.status).toBe(200);
    expect(res.body.customer).not.toHaveProperty("colour");
  });

  it("gives every response an X-Request-Id, echoing a well-formed one", async () => {
    const fresh = await call("GET", "/health");
    expect(fresh.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await call("GET", "/nowhere", { headers: { "X-Request-Id": "abc.DEF_123-x" } });
    expect(echoed.headers.get("X-Request-Id")).toBe("abc.DEF_123-x");
    expect(echoed.body.error.request_id).toBe("abc.DEF_123-x");
    const replaced = await call("GET", "/health", { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(replaced.headers.get("X-Request-Id")).not.toBe("bad id with spaces");
  });

  it("answers an unknown path with 404 route_not_found", async () => {
    const res = await call("POST", "/api/no_such_operation/", { body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: 0, error: { code: "route_not_found" } });
  });

  it("answers a wrong method on a known path with 405 and Allow", async () => {
    const res = await call("GET", "/api/create_customer/");
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe("method_not_allowed");
    expect(res.headers.get("Allow")).toContain("POST");
    const withoutSlash = await call("PUT", "/api/customers");
    expect(withoutSlash.status).toBe(405);
    expect(withoutSlash.headers.get("Allow")).toContain("GET");
  });

  it("reports authentication before body problems", async () => {
    const res = await call("POST", "/api/get_customer/", { rawBody: "{oops", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("missing_api_token");
  });
});

describe("OpenAPI and docs", () => {
  it("serves an OpenAPI 3.1 document with every customer operation, paths as written", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const paths = Object.keys(res.body.paths);
    for (const path of [
      "/api/create_customer/",
      "/api/get_customer/",
      "/api/customers/",
      "/api/v2/customers/",
      "/api/update_customer/",
      "/api/delete_customer/",
      "/api/refresh_customer_token/",
      "/api/create_group_tag/",
      "/api/group_tags/",
      "/api/rename_group_tag/",
      "/api/delete_group_tag/",
      "/admin/access_groups/",
      "/admin/api_tokens/",
      "/admin/hierarchy_levels/",
    ]) {
      expect(paths).toContain(path);
    }
    expect(res.body.paths["/api/customers/"].get.deprecated).toBe(true);
    for (const path of ["/api/create_user_group/", "/api/update_user_group/", "/api/create_end_user/", "/api/update_end_user/"]) {
      expect(res.body.paths[path].post.deprecated, path).toBe(true);
    }
    for (const path of ["/api/create_blueprint/", "/api/update_blueprint/", "/api/get_customer_blueprints/", "/api/get_blueprint/"]) {
      expect(res.body.paths[path].post.deprecated, path).toBeUndefined();
    }
    expect(res.body.components.schemas.BlueprintColumn.properties.type.enum).toEqual([
      "INTEGER",
      "FLOAT",
      "BOOLEAN",
      "STRING",
      "DATETIME",
      "TIMESTAMP",
      "DATE",
    ]);
    const create = res.body.paths["/api/create_customer/"].post;
    expect(create.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/CreateCustomerRequest");
    expect(res.body.components.schemas.CreateCustomerRequest.required).toEqual(["provided_id"]);
    expect(Object.keys(res.body.components.schemas.Customer.properties)).toEqual([
      "token",
      "name",
      "provided_id",
      "emails",
      "group_tags",
      "hierarchy_level",
      "access_group",
      "is_demo_group",
      "properties",
      "computed_properties",
      "parent_schema_datasource_mapping",
      "computed_parent_schema_datasource_mapping",
      "theme",
      "locale",
      "timezone",
      "computed_theme",
      "computed_locale",
      "computed_timezone",
    ]);
  });

  it("serves a readable docs page that lists the operations", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(res.body).toContain("/api/create_customer/");
    expect(res.body).toContain("Get or create a customer");
    expect(res.body).not.toMatch(/<script[^>]+src=/);
  });
});
