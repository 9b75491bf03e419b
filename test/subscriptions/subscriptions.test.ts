import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { fetchDownload, sentMails, waitForJob } from "../helpers/delivery";
import { parseMime } from "../helpers/mime";

const DB = (env as unknown as { DB: D1Database }).DB;
let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let otherDashboard: string;
let providedId: string;

beforeAll(async () => {
  await seedOrders();
  ws = await workspace();
  const { schema, demo } = await sources();
  embedId = await dashboard(
    { title: "Numbers", panels: [kpi("revenue", schema, "SELECT SUM(amount) AS value FROM orders WHERE customer_id = 'alpha'")] },
    ["production"],
  );
  otherDashboard = await dashboard({ title: "Other", panels: [kpi("n", schema, "SELECT 1 AS value")] }, ["production"]);
  providedId = (
    await createCustomer(ws.write, {
      provided_id: unique("sub"),
      name: "Alpha",
      emails: ["vendor-default@alpha.example"],
      mapping: { [schema]: demo },
    })
  ).provided_id;
});

async function mint(body: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/generate_embed_token/", {
    token: ws.write,
    body: { provided_id: providedId, dashboard_embed_id: embedId, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.token as string;
}

const subscribe = (token: string, body: unknown, embed = embedId) =>
  call("POST", `/embed/${embed}/subscriptions`, { body, headers: { Authorization: `Bearer ${token}` } });
const list = (token: string) => call("GET", `/embed/${embedId}/subscriptions`, { headers: { Authorization: `Bearer ${token}` } });
const cancel = (token: string, id: string) =>
  call("DELETE", `/embed/${embedId}/subscriptions/${id}`, { headers: { Authorization: `Bearer ${token}` } });
const count = async () => (await DB.prepare("SELECT count(*) AS n FROM report_schedules").first<{ n: number }>())!.n;

describe("self-service subscriptions from the embed page", () => {
  it("subscribes the token's own address (weekly on Mondays at the chosen hour in the viewer's time zone), lists it, and the vendor sees it with source embed", async () => {
    const email = `${unique("viewer")}@alpha.example`;
    const token = await mint({ user_email: email });
    const res = await subscribe(token, { frequency: "weekly", hour: 8, timezone: "Europe/Berlin" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription).toMatchObject({
      id: expect.stringMatching(/^sch_/),
      dashboard_embed_id: embedId,
      provided_id: providedId,
      group_tag: null,
      cron: "0 8 * * 1",
      timezone: "Europe/Berlin",
      recipients: [email.toLowerCase()],
      format: "report",
      pdf: null,
      source: "embed",
      paused: false,
    });
    const daily = await subscribe(token, { frequency: "daily", hour: 0, timezone: "UTC" });
    const monthly = await subscribe(token, { frequency: "monthly", hour: 23, timezone: "America/New_York" });
    expect([daily.body.subscription.cron, monthly.body.subscription.cron]).toEqual(["0 0 * * *", "0 23 1 * *"]);

    const mine = await list(token);
    expect(mine.status).toBe(200);
    expect(mine.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([
      res.body.subscription.id,
      daily.body.subscription.id,
      monthly.body.subscription.id,
    ]);
    const vendor = await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id: res.body.subscription.id } });
    expect(vendor.body.schedule.source).toBe("embed");
    const apiMade = await call("POST", "/api/create_report_schedule/", {
      token: ws.write,
      body: { dashboard_embed_id: embedId, provided_id: providedId, cron: "0 9 * * *" },
    });
    expect(apiMade.body.schedule.source).toBe("api");
    // The API's schedule is not the viewer's: not listed, cannot be cancelled from the embed.
    expect((await list(token)).body.subscriptions).toHaveLength(3);
    expect((await cancel(token, apiMade.body.schedule.id)).status).toBe(404);
  });

  it.each([
    ["email", { email: "someone@else.example" }],
    ["recipients", { recipients: ["someone@else.example"] }],
    ["to", { to: "x@y.example" }],
  ])(
    "refuses a body naming an address (%s: 400 validation_error) and stores nothing; without it the same body subscribes",
    async (field, extra) => {
      const token = await mint({ user_email: `${unique("v")}@alpha.example` });
      const before = await count();
      const res = await subscribe(token, { frequency: "daily", hour: 7, timezone: "UTC", ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field });
      expect(await count()).toBe(before);
      expect((await subscribe(token, { frequency: "daily", hour: 7, timezone: "UTC" })).status).toBe(200);
    },
  );

  it.each([
    ["an hour of 24", { hour: 24 }, "hour"],
    ["a fractional hour", { hour: 7.5 }, "hour"],
    ["an unknown frequency", { frequency: "hourly" }, "frequency"],
    ["an unknown time zone", { timezone: "Mars/Olympus" }, "timezone"],
  ])("refuses %s (400 validation_error on that field)", async (_name, change, field) => {
    const token = await mint({ user_email: `${unique("v")}@alpha.example` });
    const res = await subscribe(token, { frequency: "daily", hour: 7, timezone: "UTC", ...change });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
  });

  it("refuses a token without user_email (403 subscriptions_not_allowed), a bad token and one for another dashboard (401 invalid_embed_token) — before looking at the body", async () => {
    const plain = await mint();
    const refused = await subscribe(plain, { email: "x@y.example" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("subscriptions_not_allowed");
    expect((await list(plain)).status).toBe(403);
    const bad = await subscribe("not-a-token", { frequency: "daily", hour: 7, timezone: "UTC" });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("invalid_embed_token");
    expect((await call("GET", `/embed/${embedId}/subscriptions`)).status).toBe(401);
    const elsewhere = await call("POST", "/api/generate_embed_token/", {
      token: ws.write,
      body: { provided_id: providedId, dashboard_embed_id: otherDashboard, user_email: "v@alpha.example" },
    });
    expect((await subscribe(elsewhere.body.token, { frequency: "daily", hour: 7, timezone: "UTC" })).status).toBe(401);
  });

  it("a viewer sees and cancels only their own subscriptions; another viewer's id is 404 and stays", async () => {
    const mine = await mint({ user_email: `${unique("me")}@alpha.example` });
    const theirs = await mint({ user_email: `${unique("them")}@alpha.example` });
    const a = (await subscribe(mine, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription;
    const b = (await subscribe(theirs, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription;
    expect((await list(mine)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([a.id]);
    const stolen = await cancel(mine, b.id);
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe("schedule_not_found");
    expect((await list(theirs)).body.subscriptions).toHaveLength(1);
    expect((await cancel(mine, a.id)).body).toMatchObject({ success: 1 });
    expect((await list(mine)).body.subscriptions).toEqual([]);
  });

  it("caps a viewer at 20 subscriptions per dashboard (422 subscription_limit_reached, nothing stored); other viewers and a freed place still subscribe", async () => {
    const email = `${unique("cap")}@alpha.example`;
    const token = await mint({ user_email: email });
    const made: string[] = [];
    for (let hour = 0; hour < 20; hour++) {
      const res = await subscribe(token, { frequency: "daily", hour, timezone: "UTC" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      made.push(res.body.subscription.id);
    }
    const before = await count();
    const over = await subscribe(token, { frequency: "weekly", hour: 9, timezone: "UTC" });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe("subscription_limit_reached");
    expect(await count()).toBe(before);
    expect((await list(token)).body.subscriptions).toHaveLength(20);
    // Controls: another viewer of the same dashboard is not affected; cancelling one frees a place.
    expect(
      (await subscribe(await mint({ user_email: `${unique("other")}@alpha.example` }), { frequency: "daily", hour: 9, timezone: "UTC" }))
        .status,
    ).toBe(200);
    expect((await cancel(token, made[0])).status).toBe(200);
    expect((await subscribe(token, { frequency: "weekly", hour: 9, timezone: "UTC" })).status).toBe(200);
  });

  it("lets only 20 of racing subscribes at the limit through", async () => {
    const token = await mint({ user_email: `${unique("race")}@alpha.example` });
    const answers = await Promise.all(
      Array.from({ length: 26 }, (_, i) => subscribe(token, { frequency: "daily", hour: i % 24, timezone: "UTC" })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 422 && a.body.error.code === "subscription_limit_reached")).toHaveLength(6);
    expect((await list(token)).body.subscriptions).toHaveLength(20);
  });

  it("keeps access groups apart: the subscription is in the customer's access group only", async () => {
    const token = await mint({ user_email: `${unique("iso")}@alpha.example` });
    const id = (await subscribe(token, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription.id;
    const stranger = await workspace();
    expect((await call("POST", "/api/get_report_schedule/", { token: stranger.read, body: { id } })).status).toBe(404);
    expect((await call("GET", "/api/report_schedules/", { token: stranger.read })).body.schedules).toEqual([]);
    expect((await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id } })).status).toBe(200);
  });

  it("a subscription's e-mail goes to the subscriber alone (not the customer's own addresses)", async () => {
    const email = `${unique("only")}@alpha.example`;
    const token = await mint({ user_email: email });
    const id = (await subscribe(token, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription.id;
    const run = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id } });
    expect(run.body.run.job_ids).toHaveLength(1);
    expect((await waitForJob(ws.read, run.body.run.job_ids[0], (s) => s === "done" || s === "failed", 90_000)).status).toBe("done");
    const [raw] = await sentMails(run.body.run.job_ids[0]);
    expect(parseMime(raw).to.toLowerCase()).toContain(email.toLowerCase());
    expect(raw).toMatch(/^List-Unsubscribe: </m);
  }, 120_000);

  it("a subscription renders the version its token was pinned to (environment), not the fuller one; null when unpinned", async () => {
    const { schema } = await sources();
    const panels = [kpi("revenue", schema, "SELECT 7 AS value")];
    const limited = await dashboard({ title: "Limited", panels }, ["limited"]);
    // A newer, fuller version tagged production: what the unpinned policy (email, production, newest) shows.
    const full = await call("POST", "/admin/dashboard_versions/", {
      headers: { Authorization: "Bearer test-admin-token" },
      body: { embed_id: limited, definition: { title: "Full", panels: [...panels, kpi("secret_panel", schema, "SELECT 99 AS value")] } },
    });
    expect(full.status).toBe(200);
    await call("POST", "/admin/dashboard_tags/", {
      headers: { Authorization: "Bearer test-admin-token" },
      body: { embed_id: limited, tag: "production", version_number: full.body.version.version_number },
    });
    const mintFor = async (extra: Record<string, unknown>) =>
      (
        await call("POST", "/api/generate_embed_token/", {
          token: ws.write,
          body: { provided_id: providedId, dashboard_embed_id: limited, user_email: `${unique("env")}@alpha.example`, ...extra },
        })
      ).body.token as string;
    const pinned = await mintFor({ environment: "limited" });
    const plain = await mintFor({});
    const subscribeTo = (token: string) => subscribe(token, { frequency: "daily", hour: 6, timezone: "UTC" }, limited);
    const a = (await subscribeTo(pinned)).body.subscription;
    const b = (await subscribeTo(plain)).body.subscription;
    expect([a.environment, b.environment]).toEqual(["limited", null]);
    const vendor = await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id: a.id } });
    expect(vendor.body.schedule.environment).toBe("limited");

    const sharePage = async (id: string) => {
      const run = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id } });
      const jobId = run.body.run.job_ids[0];
      expect((await waitForJob(ws.read, jobId, (st) => st === "done" || st === "failed", 90_000)).status).toBe("done");
      const [raw] = await sentMails(jobId);
      const link = /http:\/\/api\.test\/share\/[0-9a-f]{64}/.exec(raw.replace(/=\r?\n/g, ""))?.[0];
      expect(link).toBeDefined();
      return new TextDecoder().decode((await fetchDownload(link!)).bytes);
    };
    const [pinnedPage, plainPage] = await Promise.all([sharePage(a.id), sharePage(b.id)]);
    // The review's case: the pinned viewer's e-mail never shows the fuller version's panel.
    expect(pinnedPage).toContain('data-panel-id="revenue"');
    expect(pinnedPage).not.toContain("secret_panel");
    // Control: the unpinned subscription shows the production version, secret panel included.
    expect(plainPage).toContain('data-panel-id="secret_panel"');
  }, 180_000);

  it("refresh_customer_token deletes the customer's embed subscriptions (the old token's viewers stop), API schedules stay", async () => {
    const { schema, demo } = await sources();
    const customer = await createCustomer(ws.write, { provided_id: unique("leaver"), mapping: { [schema]: demo } });
    const token = (
      await call("POST", "/api/generate_embed_token/", {
        token: ws.write,
        body: { provided_id: customer.provided_id, dashboard_embed_id: embedId, user_email: `${unique("leaver")}@alpha.example` },
      })
    ).body.token as string;
    const sub = (await subscribe(token, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription;
    const api = await call("POST", "/api/create_report_schedule/", {
      token: ws.write,
      body: {
        dashboard_embed_id: embedId,
        provided_id: customer.provided_id,
        cron: "0 6 * * *",
        timezone: "UTC",
        recipients: ["vendor@alpha.example"],
      },
    });
    expect(api.status, JSON.stringify(api.body)).toBe(200);
    const exists = async (id: string) => (await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id } })).status;
    expect(await exists(sub.id)).toBe(200);
    // A refresh refused (wrong current token) changes nothing.
    expect((await call("POST", "/api/refresh_customer_token/", { token: ws.write, body: { current_token: "f".repeat(64) } })).status).toBe(
      404,
    );
    expect(await exists(sub.id)).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ws.write, body: { current_token: customer.token } });
    expect(refreshed.status).toBe(200);
    expect(await exists(sub.id)).toBe(404);
    expect(await exists(api.body.schedule.id)).toBe(200);
    // The old embed token subscribes no more.
    expect((await subscribe(token, { frequency: "daily", hour: 7, timezone: "UTC" })).status).toBe(401);
    // Control: a token minted under the new customer token subscribes again.
    const fresh = (
      await call("POST", "/api/generate_embed_token/", {
        token: ws.write,
        body: { provided_id: customer.provided_id, dashboard_embed_id: embedId, user_email: `${unique("back")}@alpha.example` },
      })
    ).body.token as string;
    expect((await subscribe(fresh, { frequency: "daily", hour: 7, timezone: "UTC" })).status).toBe(200);
  });

  it("deleting the customer deletes its embed subscriptions; a refused delete (children) keeps them", async () => {
    const parent = await createCustomer(ws.write, { provided_id: unique("gone") });
    const child = await createCustomer(ws.write, {
      provided_id: unique("kid"),
      parent_provided_id: parent.provided_id,
      hierarchy_level_name: "User",
    });
    const token = (
      await call("POST", "/api/generate_embed_token/", {
        token: ws.write,
        body: { provided_id: parent.provided_id, dashboard_embed_id: embedId, user_email: `${unique("gone")}@alpha.example` },
      })
    ).body.token as string;
    const sub = (await subscribe(token, { frequency: "daily", hour: 6, timezone: "UTC" })).body.subscription;
    const rows = async () =>
      (await DB.prepare("SELECT count(*) AS n FROM report_schedules WHERE id = ?").bind(sub.id).first<{ n: number }>())!.n;
    expect((await call("DELETE", "/api/delete_customer/", { token: ws.write, body: { current_token: parent.token } })).status).toBe(409);
    expect(await rows()).toBe(1);
    expect((await call("DELETE", "/api/delete_customer/", { token: ws.write, body: { current_token: child.token } })).status).toBe(200);
    expect((await call("DELETE", "/api/delete_customer/", { token: ws.write, body: { current_token: parent.token } })).status).toBe(200);
    expect(await rows()).toBe(0);
  });
});
