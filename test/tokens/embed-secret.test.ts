import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, callWithEnv, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, kpi, sources } from "../helpers/dashboards";

// Outside ENVIRONMENT=development a missing EMBED_TOKEN_SECRET is never replaced by the known
// local one (docs/getting-started.md "Configuration and deployment"): minting and opening signed tokens answer 500 naming the
// secret, and the isolate logs it once.

let ctx: { write: string; customer: string; embedId: string };
beforeAll(async () => {
  const { write } = await workspace();
  const { schema, demo } = await sources();
  const customer = (await createCustomer(write, { provided_id: unique("secretless"), mapping: { [schema]: demo } })).provided_id as string;
  const embedId = await dashboard({ panels: [kpi("one", schema, "SELECT 1 AS value")] });
  ctx = { write, customer, embedId };
});
afterEach(() => vi.restoreAllMocks());

const mintWith = (overrides: Record<string, unknown>) =>
  callWithEnv(overrides, "POST", "/api/generate_embed_token/", {
    token: ctx.write,
    body: { provided_id: ctx.customer, dashboard_embed_id: ctx.embedId },
  });

describe("EMBED_TOKEN_SECRET outside development", () => {
  it.each(["production", "staging"])(
    "in %s without the secret: mint and embed answer 500 naming it, and a log line says so",
    async (environment) => {
      const spy = vi.spyOn(console, "error");
      const withoutSecret = { ENVIRONMENT: environment, EMBED_TOKEN_SECRET: undefined };
      const mint = await mintWith(withoutSecret);
      expect(mint.status).toBe(500);
      expect(mint.body.error.code).toBe("internal_error");
      expect(mint.body.error.message).toContain("EMBED_TOKEN_SECRET");
      expect(mint.body.token).toBeUndefined();

      // A token signed with the public development secret is not accepted either.
      const devToken = (await mintWith({ ENVIRONMENT: "development", EMBED_TOKEN_SECRET: undefined })).body.token as string;
      expect(devToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const page = await callWithEnv(withoutSecret, "GET", `/embed/${ctx.embedId}?token=${devToken}`);
      expect(page.status).toBe(500);
      expect(JSON.stringify(page.body)).toContain("EMBED_TOKEN_SECRET");
      expect(JSON.stringify(page.body)).not.toContain("data-render-complete");
      const logged = spy.mock.calls.map((args) => args.map(String).join(" "));
      if (environment === "production")
        expect(logged.some((line) => line.includes('"configuration"') && line.includes("EMBED_TOKEN_SECRET"))).toBe(true);
    },
  );

  it("with the secret set, production mints and opens tokens (the control)", async () => {
    const production = { ENVIRONMENT: "production" };
    const mint = await mintWith(production);
    expect(mint.status).toBe(200);
    const page = await callWithEnv(production, "GET", `/embed/${ctx.embedId}?token=${mint.body.token}`);
    expect(page.status).toBe(200);
  });

  it("development without the secret still mints with the local one (npm start works out of the box)", async () => {
    const mint = await mintWith({ ENVIRONMENT: "development", EMBED_TOKEN_SECRET: undefined });
    expect(mint.status).toBe(200);
    expect((await call("GET", "/embed.js")).status).toBe(200);
  });
});
