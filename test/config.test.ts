// src/config.ts: the Worker's vars parsed once per isolate with zod. A var that does not parse
// is refused with a message naming it (500 internal_error on the request that needs it, nothing
// created); a good value of the same var is used (control).
import { createExecutionContext, createMessageBatch, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { config, ConfigError } from "../src/config";
import worker from "../src/index";
import { callWithEnv, getCustomer, unique, workspace } from "./helpers/api";

describe("the Worker's vars (src/config.ts)", () => {
  it("refuses a paid-customer limit that is not a number, naming PAID_CUSTOMER_LIMIT; creates nothing", async () => {
    const { write } = await workspace();
    const providedId = unique("cfg");
    const res = await callWithEnv({ PAID_CUSTOMER_LIMIT: "lots" }, "POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: providedId, name: "Config" },
    });
    expect(res.status).toBe(500);
    expect(res.body.success).toBe(0);
    expect(res.body.error.code).toBe("internal_error");
    expect(res.body.error.message).toMatch(/^Invalid configuration: PAID_CUSTOMER_LIMIT is "lots": /);
    expect((await getCustomer(write, providedId)).status).toBe(404);
  });

  it('uses a good value of the same var (control): PAID_CUSTOMER_LIMIT="1" allows one paid customer, not two', async () => {
    const { write } = await workspace();
    const first = await callWithEnv({ PAID_CUSTOMER_LIMIT: "1" }, "POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: unique("cfg"), name: "One" },
    });
    expect(first.status).toBe(200);
    const second = await callWithEnv({ PAID_CUSTOMER_LIMIT: "1" }, "POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: unique("cfg"), name: "Two" },
    });
    expect(second.status).not.toBe(200);
    expect(second.body.error.message).not.toMatch(/configuration/i);
  });

  it("gives numbers with their defaults, treats an empty var as absent, and names every bad var with its reason", () => {
    expect(config({ RATE_LIMIT_PER_MINUTE: "40", PAID_CUSTOMER_LIMIT: "" })).toMatchObject({
      RATE_LIMIT_PER_MINUTE: 40,
      PAID_CUSTOMER_LIMIT: 0,
      DELIVERY_LIMIT_PER_MINUTE: 20,
      BUILDER_REQUESTS_PER_MINUTE: 300,
    });
    expect(config(env)).toMatchObject({ RATE_LIMIT_PER_MINUTE: 600, PAID_CUSTOMER_LIMIT: 0 });
    expect(() => config({ RATE_LIMIT_PER_MINUTE: "0", QUERY_ROW_LIMIT: "1.5" })).toThrow(ConfigError);
    expect(() => config({ SHARE_TTL_SECONDS: "30" })).toThrow(/SHARE_TTL_SECONDS is "30": /);
    expect(config({ SHARE_TTL_SECONDS: "60", CAPTURE_STATIONS: "4" })).toMatchObject({
      SHARE_TTL_SECONDS: 60,
      CAPTURE_STATIONS: 4,
      DOWNLOAD_TTL_SECONDS: 900,
    });
    expect(() => config({ RATE_LIMIT_PER_MINUTE: "0", QUERY_ROW_LIMIT: "1.5" })).toThrow(
      /RATE_LIMIT_PER_MINUTE is "0": .*; QUERY_ROW_LIMIT is "1\.5": /,
    );
  });

  it("parses switches and enums with their defaults: DIAGNOSTICS and FAULT_INJECTION on outside production, DEV_ROUTES in development", () => {
    expect(config({ ENVIRONMENT: "development" })).toMatchObject({
      DIAGNOSTICS: true,
      FAULT_INJECTION: true,
      DEV_ROUTES: true,
      EMBED_REQUIRE_SIGNED: false,
      REPORT_IMAGE_FORMAT: "png",
      LOG_LEVEL: "info",
      FRAME_ANCESTORS: "'none'",
    });
    expect(config({ ENVIRONMENT: "staging" })).toMatchObject({ DIAGNOSTICS: true, FAULT_INJECTION: true, DEV_ROUTES: false });
    expect(config({ ENVIRONMENT: "production" })).toMatchObject({ DIAGNOSTICS: false, FAULT_INJECTION: false, DEV_ROUTES: false });
    // No ENVIRONMENT at all is the safe side: production.
    expect(config({})).toMatchObject({ ENVIRONMENT: "production", DIAGNOSTICS: false, DEV_ROUTES: false });
    // Set explicitly, a switch wins over the name (TOML booleans arrive as booleans).
    expect(config({ ENVIRONMENT: "production", DIAGNOSTICS: "true", FAULT_INJECTION: true })).toMatchObject({
      DIAGNOSTICS: true,
      FAULT_INJECTION: true,
    });
    expect(config({ ENVIRONMENT: "development", DEV_ROUTES: "false", DIAGNOSTICS: false })).toMatchObject({
      DEV_ROUTES: false,
      DIAGNOSTICS: false,
    });
    expect(
      config({ EMBED_REQUIRE_SIGNED: "true", REPORT_IMAGE_FORMAT: "jpeg", LOG_LEVEL: "debug", FRAME_ANCESTORS: " https://a.example " }),
    ).toMatchObject({ EMBED_REQUIRE_SIGNED: true, REPORT_IMAGE_FORMAT: "jpeg", LOG_LEVEL: "debug", FRAME_ANCESTORS: "https://a.example" });
  });

  it("refuses a switch, an enum or an environment it does not know, naming the var", () => {
    expect(() => config({ DIAGNOSTICS: "yes" })).toThrow(/^Invalid configuration: DIAGNOSTICS is "yes": must be "true" or "false"\.$/);
    expect(() => config({ FAULT_INJECTION: "1" })).toThrow(/FAULT_INJECTION is "1": /);
    expect(() => config({ DEV_ROUTES: "on" })).toThrow(/DEV_ROUTES is "on": /);
    expect(() => config({ EMBED_REQUIRE_SIGNED: "TRUE" })).toThrow(/EMBED_REQUIRE_SIGNED is "TRUE": /);
    expect(() => config({ ENVIRONMENT: "prod" })).toThrow(/ENVIRONMENT is "prod": /);
    expect(() => config({ REPORT_IMAGE_FORMAT: "gif" })).toThrow(/REPORT_IMAGE_FORMAT is "gif": /);
    expect(() => config({ LOG_LEVEL: "verbose" })).toThrow(/LOG_LEVEL is "verbose": /);
    // The controls: the same vars with good values.
    expect(
      config({ FAULT_INJECTION: "false", DEV_ROUTES: "true", ENVIRONMENT: "staging", REPORT_IMAGE_FORMAT: "png", LOG_LEVEL: "warn" }),
    ).toMatchObject({ FAULT_INJECTION: false, DEV_ROUTES: true });
  });

  it("answers a request with a bad switch with 500 naming it; the request with a good one is served (control)", async () => {
    const bad = await callWithEnv({ LOG_LEVEL: "loud" }, "GET", "/health");
    expect(bad.status).toBe(500);
    expect(bad.body.error.message).toMatch(/^Invalid configuration: LOG_LEVEL is "loud": /);
    const good = await callWithEnv({ LOG_LEVEL: "error" }, "GET", "/health");
    expect(good.status).toBe(200);
  });

  it("fails a cron run and a queue batch with a bad var before any work, naming it; with good vars both run (control)", async () => {
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" });
    await expect(worker.scheduled(controller, { ...env, DIAGNOSTICS: "maybe" } as never)).rejects.toThrow(/DIAGNOSTICS is "maybe": /);
    await expect(worker.scheduled(controller, env as never)).resolves.toBeUndefined();

    const batch = () =>
      createMessageBatch("customer-dashboard-delivery", [
        { id: unique("message"), timestamp: new Date(), attempts: 1, body: { jobId: "job_nobody" } },
      ]);
    const ctx = createExecutionContext();
    await expect((async () => worker.queue(batch() as never, { ...env, LOG_LEVEL: "loud" } as never, ctx))()).rejects.toThrow(
      /LOG_LEVEL is "loud": /,
    );
    await expect(worker.queue(batch() as never, env as never, ctx)).resolves.toBeUndefined();
    await waitOnExecutionContext(ctx);
  });
});
