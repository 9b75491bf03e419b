import { describe, expect, it } from "vitest";
import { call, callWithEnv } from "../helpers/api";

/** The benchmark's floor routes: what `npm run bench` compares get_customer with. */
describe("benchmark floor routes (development only)", () => {
  it("answers one trivial D1 query in one round trip", async () => {
    const res = await call("GET", "/_dev/floor/d1");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, one: 1 });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
  });

  it("echoes a JSON body without touching D1", async () => {
    const res = await call("POST", "/_dev/floor/echo", { body: { provided_id: "x" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, body: { provided_id: "x" } });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("0");
  });

  it("reads the body under the API's body rules and runs one query", async () => {
    const res = await call("POST", "/_dev/floor/body-d1", { body: { provided_id: "x" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, one: 1, body: { provided_id: "x" } });
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");

    const notJson = await call("POST", "/_dev/floor/body-d1", { rawBody: "provided_id=x", headers: { "Content-Type": "text/plain" } });
    expect(notJson.status).toBe(415);
    expect(notJson.body.error.code).toBe("unsupported_media_type");
    expect(notJson.headers.get("X-D1-Round-Trips")).toBe("0");
  });

  it("does not exist in production (404 route_not_found)", async () => {
    for (const [method, path] of [
      ["GET", "/_dev/floor/d1"],
      ["POST", "/_dev/floor/echo"],
      ["POST", "/_dev/floor/body-d1"],
    ]) {
      const res = await callWithEnv({ ENVIRONMENT: "production" }, method, path, method === "POST" ? { body: {} } : {});
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("route_not_found");
    }
  });
});
