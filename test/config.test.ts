// src/config.ts: the Worker's vars parsed once per isolate with zod. A var that does not parse
// is refused with a message naming it (500 internal_error on the request that needs it, nothing
// created); a good value of the same var is used (control).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { config, ConfigError } from "../src/config";
import { callWithEnv, getCustomer, unique, workspace } from "./helpers/api";

describe("the Worker's vars (src/config.ts)", () => {
  it("refuses a paid-customer limit that is not a number, naming PAID_CUSTOMER_LIMIT; creates nothing", async () => {
    const { write } = await workspace();
    const providedId = unique("cfg");
    const res = await callWithEnv({ PAID_CUSTOMER_LIMIT: "lots" }, "POST", "/api/create_customer/", { token: write, body: { provided_id: providedId, name: "Config" } });
    expect(res.status).toBe(500);
    expect(res.body.success).toBe(0);
    expect(res.body.error.code).toBe("internal_error");
    expect(res.body.error.message).toMatch(/^Invalid configuration: PAID_CUSTOMER_LIMIT is "lots": /);
    expect((await getCustomer(write, providedId)).status).toBe(404);
  });

  it("uses a good value of the same var (control): PAID_CUSTOMER_LIMIT=\"1\" allows one paid customer, not two", async () => {
    const { write } = await workspace();
    const first = await callWithEnv({ PAID_CUSTOMER_LIMIT: "1" }, "POST", "/api/create_customer/", { token: write, body: { provided_id: unique("cfg"), name: "One" } });
    expect(first.status).toBe(200);
    const second = await callWithEnv({ PAID_CUSTOMER_LIMIT: "1" }, "POST", "/api/create_customer/", { token: write, body: { provided_id: unique("cfg"), name: "Two" } });
    expect(second.status).not.toBe(200);
    expect(second.body.error.message).not.toMatch(/configuration/i);
  });

  it("gives numbers with their defaults, treats an empty var as absent, and names every bad var with its reason", () => {
    expect(config({ RATE_LIMIT_PER_MINUTE: "40", PAID_CUSTOMER_LIMIT: "" })).toMatchObject({ RATE_LIMIT_PER_MINUTE: 40, PAID_CUSTOMER_LIMIT: 0, DELIVERY_LIMIT_PER_MINUTE: 20, BUILDER_REQUESTS_PER_MINUTE: 300 });
    expect(config(env)).toMatchObject({ RATE_LIMIT_PER_MINUTE: 600, PAID_CUSTOMER_LIMIT: 0 });
    expect(() => config({ RATE_LIMIT_PER_MINUTE: "0", QUERY_ROW_LIMIT: "1.5" })).toThrow(ConfigError);
    expect(() => config({ SHARE_TTL_SECONDS: "30" })).toThrow(/SHARE_TTL_SECONDS is "30": /);
    expect(config({ SHARE_TTL_SECONDS: "60", CAPTURE_STATIONS: "4" })).toMatchObject({ SHARE_TTL_SECONDS: 60, CAPTURE_STATIONS: 4, DOWNLOAD_TTL_SECONDS: 900 });
    expect(() => config({ RATE_LIMIT_PER_MINUTE: "0", QUERY_ROW_LIMIT: "1.5" })).toThrow(/RATE_LIMIT_PER_MINUTE is "0": .*; QUERY_ROW_LIMIT is "1\.5": /);
  });
});
