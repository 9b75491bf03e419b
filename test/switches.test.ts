// The switches of src/config.ts, each with its control: DIAGNOSTICS (round-trip headers and
// counted bindings), DEV_ROUTES (every /_dev/ route, owned by dev/dev-only.ts) and
// FAULT_INJECTION (delivery's test faults). Set explicitly they win over the environment's
// name; unset they follow it (on outside production, /_dev/ in development only).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliveryEffects } from "../src/delivery/run/effects";
import type { Env } from "../src/env";
import { callWithEnv, createCustomer, getCustomer, unique, workspace } from "./helpers/api";

const DIAGNOSTIC_HEADERS = ["X-D1-Round-Trips", "X-D1-Primary-Round-Trips", "X-DO-Round-Trips", "X-Binding-Round-Trips"];

async function getCustomerWith(overrides: Record<string, unknown>) {
  const { write } = await workspace();
  const customer = await createCustomer(write, { provided_id: unique("switch") });
  return callWithEnv(overrides, "POST", "/api/get_customer/", { token: write, body: { provided_id: customer.provided_id } });
}

describe("DIAGNOSTICS", () => {
  it("on: a read answers its round trips (X-D1-Round-Trips and the rest)", async () => {
    const res = await getCustomerWith({ DIAGNOSTICS: "true" });
    expect(res.status).toBe(200);
    for (const name of DIAGNOSTIC_HEADERS) expect(res.headers.get(name), name).toMatch(/\d/);
    expect(Number(res.headers.get("X-D1-Round-Trips"))).toBeGreaterThan(0);
  });

  it("off: the same read answers the same body without any round-trip header", async () => {
    const res = await getCustomerWith({ DIAGNOSTICS: "false" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(1);
    for (const name of [...DIAGNOSTIC_HEADERS, "X-D1-Session"]) expect(res.headers.get(name), name).toBeNull();
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("follows the environment when unset (off in production), and an explicit value wins over the name", async () => {
    expect((await getCustomerWith({ ENVIRONMENT: "production" })).headers.get("X-D1-Round-Trips")).toBeNull();
    expect((await getCustomerWith({ ENVIRONMENT: "staging" })).headers.get("X-D1-Round-Trips")).toMatch(/^\d+$/);
    expect((await getCustomerWith({ ENVIRONMENT: "production", DIAGNOSTICS: "true" })).headers.get("X-D1-Round-Trips")).toMatch(/^\d+$/);
    expect((await getCustomerWith({ ENVIRONMENT: "development", DIAGNOSTICS: "false" })).headers.get("X-D1-Round-Trips")).toBeNull();
  });
});

describe("DEV_ROUTES: one middleware owns every /_dev/ route", () => {
  const devRoutes: [string, string][] = [
    ["GET", "/_dev/floor/d1"],
    ["POST", "/_dev/floor/echo"],
    ["GET", "/_dev/outbox"],
    ["GET", "/_dev/delivery-stages/no-such-job"],
    ["POST", "/_dev/charts/forget"],
    ["POST", "/_dev/report-sql/no-such-blueprint"],
    ["GET", "/_dev/floor/source-panels/no-such-dashboard"],
  ];

  it("off: each answers 404 route_not_found, whatever the method", async () => {
    for (const [method, path] of devRoutes) {
      const res = await callWithEnv({ DEV_ROUTES: "false" }, method, path, method === "POST" ? { body: {} } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code, `${method} ${path}`).toBe("route_not_found");
    }
    // Not a 405 naming the methods a hidden route has.
    const wrongMethod = await callWithEnv({ DEV_ROUTES: "false" }, "GET", "/_dev/floor/echo");
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.headers.get("Allow")).toBeNull();
  });

  it("on (the control): the same routes answer", async () => {
    const d1 = await callWithEnv({ DEV_ROUTES: "true" }, "GET", "/_dev/floor/d1", { admin: true });
    expect(d1.status).toBe(200);
    expect(d1.body).toEqual({ success: 1, one: 1 });
    const echo = await callWithEnv({ DEV_ROUTES: "true" }, "POST", "/_dev/floor/echo", { admin: true, body: { a: 1 } });
    expect(echo.body).toEqual({ success: 1, body: { a: 1 } });
    const outbox = await callWithEnv({ DEV_ROUTES: "true" }, "GET", "/_dev/outbox");
    expect(outbox.status).toBe(200);
    expect(String(outbox.body)).toContain("Local outbox");
    const forget = await callWithEnv({ DEV_ROUTES: "true" }, "POST", "/_dev/charts/forget", { admin: true, body: {} });
    expect(forget.body).toMatchObject({ success: 1 });
    // A route's own answers still come through (not the middleware's 404).
    const stages = await callWithEnv({ DEV_ROUTES: "true" }, "GET", "/_dev/delivery-stages/no-such-job", { admin: true });
    expect(stages.body.error.code).toBe("job_not_found");
  });

  it("follows the environment when unset: development only; staging and production have none", async () => {
    const asAdmin = { admin: true };
    expect((await callWithEnv({ ENVIRONMENT: "development" }, "GET", "/_dev/floor/d1", asAdmin)).status).toBe(200);
    expect((await callWithEnv({ ENVIRONMENT: "staging" }, "GET", "/_dev/floor/d1", asAdmin)).status).toBe(404);
    expect((await callWithEnv({ ENVIRONMENT: "production" }, "GET", "/_dev/floor/d1", asAdmin)).status).toBe(404);
  });
});

describe("FAULT_INJECTION", () => {
  const kv = (env as unknown as Env).LINKS;
  const effectsWith = (overrides: Record<string, unknown>) => deliveryEffects({ ...(env as unknown as Env), ...overrides } as Env);

  it("on: a `fault:<point>` counter makes that many calls at the point fail, counting down", async () => {
    await kv.put("fault:after_send", "1");
    await expect(effectsWith({ FAULT_INJECTION: "true" }).afterSend("job")).rejects.toThrow("injected after_send failure");
    expect(await kv.get("fault:after_send")).toBe("0");
    await expect(effectsWith({ FAULT_INJECTION: "true" }).afterSend("job")).resolves.toBeUndefined();
  });

  it("off: the same counter is neither obeyed nor read down", async () => {
    await kv.put("fault:after_send", "1");
    await expect(effectsWith({ FAULT_INJECTION: "false" }).afterSend("job")).resolves.toBeUndefined();
    expect(await kv.get("fault:after_send")).toBe("1");
    // Unset in production: off as well.
    await expect(effectsWith({ ENVIRONMENT: "production" }).afterSend("job")).resolves.toBeUndefined();
    expect(await kv.get("fault:after_send")).toBe("1");
    await kv.delete("fault:after_send");
  });
});

describe("a switch that does not parse", () => {
  it("answers 500 naming it, on any route; the same call with a good value answers (control)", async () => {
    const { write } = await workspace();
    const providedId = unique("bad-switch");
    await createCustomer(write, { provided_id: providedId });
    const bad = await callWithEnv({ DIAGNOSTICS: "yes" }, "POST", "/api/get_customer/", {
      token: write,
      body: { provided_id: providedId },
    });
    expect(bad.status).toBe(500);
    expect(bad.body.error).toMatchObject({
      code: "internal_error",
      message: expect.stringMatching(/^Invalid configuration: DIAGNOSTICS is "yes": must be "true" or "false"/),
    });
    const good = await callWithEnv({ DIAGNOSTICS: "true" }, "POST", "/api/get_customer/", {
      token: write,
      body: { provided_id: providedId },
    });
    expect(good.status).toBe(200);
    expect((await getCustomer(write, providedId)).status).toBe(200);
  });
});
