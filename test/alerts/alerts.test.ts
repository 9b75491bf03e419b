import { createScheduledController, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { runDueSchedules } from "../../src/schedules/runner/tick";
import { admin, call, createCustomer, createTag, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { sentMails, waitForJob } from "../helpers/delivery";
import { parseMime } from "../helpers/mime";

const DB = (env as unknown as { DB: D1Database }).DB;

/** The Worker's own `scheduled` handler, as the every-minute Cron Trigger fires it. */
async function tick(at: string) {
  await worker.scheduled(createScheduledController({ scheduledTime: Date.parse(at), cron: "* * * * *" }), env as never);
}

let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let schema: number;
let demo: number;
let other: number;

beforeAll(async () => {
  await seedOrders(); // DEMO_DATA: alpha's orders sum to 350, beta's to 10; OTHER_DATA: alpha-child's to 9000
  ws = await workspace();
  ({ schema, demo, other } = await sources());
  const byCustomer = "FROM orders WHERE customer_id = {{customer.properties.orders_of}}";
  embedId = await dashboard(
    {
      title: "Numbers",
      panels: [
        { ...kpi("revenue", schema, `SELECT SUM(amount) AS value ${byCustomer}`), title: "Revenue" },
        {
          id: "mixed",
          type: "table",
          title: "Orders",
          schema_id: schema,
          sql: `SELECT 'all' AS label, COUNT(*) AS orders, SUM(amount) AS total ${byCustomer}`,
          layout: { x: 3, y: 0, w: 6, h: 3 },
        },
        { id: "note", type: "text", title: "Note", text: "Hello", layout: { x: 9, y: 0, w: 3, h: 2 } },
      ],
    },
    ["production"],
  );
});

// Ticks run every due rule of the database: each test's alerts and schedules end with it.
afterEach(async () => {
  await DB.prepare("DELETE FROM report_schedules").run();
});

async function customer(ordersOf: string, emails: string[], tags: string[] = [], token = ws.write) {
  const mapping = { [schema]: ordersOf === "alpha-child" ? other : demo };
  return createCustomer(token, {
    provided_id: unique(ordersOf),
    name: `${ordersOf} Ltd`,
    emails,
    group_tags: tags,
    properties: { orders_of: ordersOf },
    mapping,
  });
}

async function createAlert(body: Record<string, unknown>, token = ws.write) {
  const res = await call("POST", "/api/create_alert/", {
    token,
    body: { dashboard_embed_id: embedId, panel_id: "revenue", cron: "0 * * * *", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.alert;
}

async function getAlert(id: string) {
  const res = await call("POST", "/api/get_alert/", { token: ws.read, body: { id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { alert: any; evaluations: any[]; runs: any[]; unsubscribed: string[] };
}

async function runAlert(id: string) {
  const res = await call("POST", "/api/run_alert/", { token: ws.write, body: { id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { run: any; evaluations: any[] };
}

/** Waits for every job and answers the e-mails they sent, parsed, with the raw text. */
async function mailsOf(jobIds: string[]) {
  for (const id of jobIds) expect((await waitForJob(ws.read, id, (s) => s === "done" || s === "failed", 90_000)).status).toBe("done");
  return (await Promise.all(jobIds.map(sentMails))).flat().map((raw) => ({ raw, ...parseMime(raw) }));
}

const textOf = (mail: ReturnType<typeof parseMime>) => mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/plain"))!.body;

describe("alert operations", () => {
  it("creates an alert with the defaults of a schedule, and lists and gets it", async () => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "lt", value: 500 } });
    expect(alert).toEqual({
      id: expect.stringMatching(/^alr_[a-z0-9]{20}$/),
      dashboard_embed_id: embedId,
      panel_id: "revenue",
      column: null,
      condition: { op: "lt", value: 500 },
      provided_id: c.provided_id,
      group_tag: null,
      cron: "0 * * * *",
      timezone: "UTC",
      recipients: [],
      callback_url: null,
      notify: "on_change",
      subject: null,
      pdf: null,
      variables: null,
      paused: false,
      next_run_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/),
      theme: null,
      locale: null,
      created_at: expect.any(String),
    });
    const list = await call("GET", "/api/alerts/", { token: ws.read });
    expect(list.body.alerts.map((a: { id: string }) => a.id)).toContain(alert.id);
    expect(await getAlert(alert.id)).toEqual({ success: 1, alert, unsubscribed: [], evaluations: [], runs: [] });
    // An alert is not a schedule, and a schedule not an alert.
    expect((await call("GET", "/api/report_schedules/", { token: ws.read })).body.schedules.map((s: { id: string }) => s.id)).not.toContain(
      alert.id,
    );
    expect((await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id: alert.id } })).status).toBe(404);
  });

  it("updates the given fields only, and deletes (then 404 alert_not_found)", async () => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "lt", value: 500 } });
    const res = await call("POST", "/api/update_alert/", {
      token: ws.write,
      body: { id: alert.id, condition: { op: "gte", value: 1 }, notify: "always", column: "value" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.alert).toMatchObject({
      condition: { op: "gte", value: 1 },
      notify: "always",
      column: "value",
      provided_id: c.provided_id,
      cron: "0 * * * *",
    });
    expect((await call("POST", "/api/delete_alert/", { token: ws.write, body: { id: alert.id } })).status).toBe(200);
    for (const path of ["/api/get_alert/", "/api/delete_alert/", "/api/run_alert/", "/api/update_alert/"]) {
      const gone = await call("POST", path, { token: ws.write, body: { id: alert.id } });
      expect(gone.status, path).toBe(404);
      expect(gone.body.error).toMatchObject({ code: "alert_not_found", field: "id" });
    }
  });

  it("stores and answers pdf, keeps it on an update that does not name it, clears it with null, and refuses an unknown size", async () => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const alert = await createAlert({
      provided_id: c.provided_id,
      condition: { op: "lt", value: 500 },
      pdf: { page_size: "Letter", orientation: "landscape" },
    });
    expect(alert.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    expect((await getAlert(alert.id)).alert.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    const update = (body: Record<string, unknown>) =>
      call("POST", "/api/update_alert/", { token: ws.write, body: { id: alert.id, ...body } });
    const kept = await update({ subject: "Low revenue" });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.alert.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    const refused = await update({ pdf: { page_size: "B5" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "validation_error", field: "pdf.page_size" });
    expect((await getAlert(alert.id)).alert.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    const changed = await update({ pdf: { page_size: "A3" } });
    expect(changed.body.alert.pdf).toEqual({ page_size: "A3" });
    const cleared = await update({ pdf: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.alert.pdf).toBeNull();
    expect((await getAlert(alert.id)).alert.pdf).toBeNull();
  });

  it.each([
    ["no condition", { condition: undefined }, "condition"],
    ["an unknown op", { condition: { op: "between", value: 1 } }, "condition.op"],
    ["a value that is not a number", { condition: { op: "lt", value: "500" } }, "condition.value"],
    ["no panel_id", { panel_id: undefined }, "panel_id"],
    ["both targets", { group_tag: "x" }, "provided_id"],
    ["a bad cron", { cron: "0 9 * *" }, "cron"],
    ["an unknown notify", { notify: "sometimes" }, "notify"],
    ["an unknown page size", { pdf: { page_size: "A5" } }, "pdf.page_size"],
    ["an unknown orientation", { pdf: { page_size: "A4", orientation: "diagonal" } }, "pdf.orientation"],
    ["an http callback_url elsewhere than localhost", { callback_url: "http://example.com/hook" }, "callback_url"],
    ["a callback_url to cloud metadata", { callback_url: "https://169.254.169.254/latest/meta-data/" }, "callback_url"],
    ["a callback_url to IPv6 loopback", { callback_url: "https://[::1]/hook" }, "callback_url"],
    ["a callback_url to loopback in hex", { callback_url: "https://0x7f000001/hook" }, "callback_url"],
    ["a callback_url to an *.internal name", { callback_url: "https://metadata.google.internal/hook" }, "callback_url"],
  ])("refuses %s (400 validation_error) and stores nothing; the same alert without it is created", async (_name, change, field) => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const body: Record<string, unknown> = {
      dashboard_embed_id: embedId,
      panel_id: "revenue",
      cron: "0 * * * *",
      provided_id: c.provided_id,
      condition: { op: "lt", value: 500 },
      ...change,
    };
    const before = await DB.prepare("SELECT count(*) AS n FROM report_schedules").first<{ n: number }>();
    const res = await call("POST", "/api/create_alert/", { token: ws.write, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await DB.prepare("SELECT count(*) AS n FROM report_schedules").first<{ n: number }>()).toEqual(before);
    await createAlert({ provided_id: c.provided_id, condition: { op: "lt", value: 500 } });
  });

  it("refuses a text panel or an unknown panel (404 panel_not_found), an unknown dashboard, customer and tag; a data panel is accepted", async () => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const base = { provided_id: c.provided_id, condition: { op: "lt", value: 500 } };
    for (const panel of ["note", "nope"]) {
      const res = await call("POST", "/api/create_alert/", {
        token: ws.write,
        body: { dashboard_embed_id: embedId, cron: "0 * * * *", ...base, panel_id: panel },
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: "panel_not_found", field: "panel_id" });
    }
    const noDash = await call("POST", "/api/create_alert/", {
      token: ws.write,
      body: { dashboard_embed_id: "no-such-dash", panel_id: "revenue", cron: "0 * * * *", ...base },
    });
    expect(noDash.body.error.code).toBe("dashboard_not_found");
    const noCustomer = await call("POST", "/api/create_alert/", {
      token: ws.write,
      body: { dashboard_embed_id: embedId, panel_id: "revenue", cron: "0 * * * *", provided_id: "nobody", condition: base.condition },
    });
    expect(noCustomer.body.error.code).toBe("customer_not_found");
    const noTag = await call("POST", "/api/create_alert/", {
      token: ws.write,
      body: { dashboard_embed_id: embedId, panel_id: "revenue", cron: "0 * * * *", group_tag: unique("none"), condition: base.condition },
    });
    expect(noTag.status).toBe(422);
    expect(noTag.body.error.code).toBe("unknown_group_tag");
    await createAlert({ ...base, panel_id: "mixed" });
  });

  it("needs a webhook secret for callback_url (422 webhook_secret_missing), then accepts it", async () => {
    const fresh = await workspace();
    const c = await customer("alpha", [], [], fresh.write);
    const body = {
      dashboard_embed_id: embedId,
      panel_id: "revenue",
      cron: "0 * * * *",
      provided_id: c.provided_id,
      condition: { op: "lt", value: 500 },
      callback_url: "https://webhook.test/x",
    };
    const refused = await call("POST", "/api/create_alert/", { token: fresh.write, body });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("webhook_secret_missing");
    await admin("POST", "/admin/webhook_secrets/", { access_group: fresh.group });
    expect((await call("POST", "/api/create_alert/", { token: fresh.write, body })).status).toBe(200);
  });

  it("keeps access groups apart: another group's token gets 404 alert_not_found on every operation and does not list it; a read token may list and get but not change", async () => {
    const c = await customer("alpha", ["a@alpha.example"]);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "lt", value: 500 } });
    const stranger = await workspace();
    for (const path of ["/api/get_alert/", "/api/update_alert/", "/api/delete_alert/", "/api/run_alert/"]) {
      const res = await call("POST", path, { token: stranger.write, body: { id: alert.id } });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("alert_not_found");
    }
    expect((await call("GET", "/api/alerts/", { token: stranger.read })).body.alerts).toEqual([]);
    // A customer of another access group cannot be targeted either.
    const theirs = await customer("alpha", ["t@x.example"], [], stranger.write);
    const foreign = await call("POST", "/api/create_alert/", {
      token: ws.write,
      body: {
        dashboard_embed_id: embedId,
        panel_id: "revenue",
        cron: "0 * * * *",
        provided_id: theirs.provided_id,
        condition: { op: "lt", value: 500 },
      },
    });
    expect(foreign.body.error.code).toBe("customer_not_found");
    for (const path of ["/api/create_alert/", "/api/update_alert/", "/api/delete_alert/", "/api/run_alert/"]) {
      const res = await call("POST", path, { token: ws.read, body: { id: alert.id } });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe("read_only_token");
    }
    expect((await getAlert(alert.id)).alert.id).toBe(alert.id);
  });
});

describe("alert evaluation, driven through the scheduler", () => {
  it("evaluates every tagged customer on its own data: fires for those below 500, not for the one above, never for another access group's", async () => {
    const tag = unique("watch");
    await createTag(ws.write, tag);
    const alpha = await customer("alpha", [`${unique("anna")}@alpha.example`], [tag]); // 350
    const beta = await customer("beta", [`${unique("bob")}@beta.example`], [tag]); // 10
    const big = await customer("alpha-child", [`${unique("carl")}@big.example`], [tag]); // 9000
    const stranger = await workspace();
    await createTag(stranger.write, tag).catch(() => undefined);
    await customer("alpha", ["stranger@other.example"], [tag], stranger.write);

    const alert = await createAlert({ group_tag: tag, condition: { op: "lt", value: 500 } });
    const slot = alert.next_run_at as string;
    await tick(slot);

    const { evaluations, runs } = await getAlert(alert.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slot, trigger: "schedule", skipped: 0 });
    const byCustomer = Object.fromEntries(evaluations.map((e) => [e.provided_id, e]));
    expect(Object.keys(byCustomer).sort()).toEqual([alpha.provided_id, beta.provided_id, big.provided_id].sort());
    expect(byCustomer[alpha.provided_id]).toEqual({ provided_id: alpha.provided_id, slot, trigger: "schedule", value: 350, fired: true });
    expect(byCustomer[beta.provided_id]).toMatchObject({ value: 10, fired: true });
    expect(byCustomer[big.provided_id]).toMatchObject({ value: 9000, fired: false });

    const mails = await mailsOf(runs[0].job_ids);
    expect(mails).toHaveLength(2);
    const alphaMail = mails.find((m) => m.to.includes("alpha.example"))!;
    const betaMail = mails.find((m) => m.to.includes("beta.example"))!;
    expect(textOf(alphaMail).split("\n")[0]).toBe("Revenue is 350, below 500");
    expect(alphaMail.subject).toBe("Revenue is 350, below 500");
    expect(textOf(betaMail).split("\n")[0]).toBe("Revenue is 10, below 500");
    expect(alphaMail.raw).toMatch(/^List-Unsubscribe: <http:\/\/api\.test\/unsubscribe\/[0-9a-f]{64}>$/m);
    expect(alphaMail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
  }, 180_000);

  it("on_change: fires when the condition becomes true, not while it stays true, not when false, and again when it comes back (four runs)", async () => {
    const c = await customer("alpha", [`${unique("oc")}@alpha.example`]);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "gt", value: 100 } });
    const switchTo = (ordersOf: string) =>
      call("POST", "/api/update_customer/", { token: ws.write, body: { provided_id: c.provided_id, properties: { orders_of: ordersOf } } });

    const first = await runAlert(alert.id); // 350 > 100: becomes true
    expect(first.evaluations).toEqual([{ provided_id: c.provided_id, slot: first.run.slot, trigger: "manual", value: 350, fired: true }]);
    expect(first.run.job_ids).toHaveLength(1);
    const second = await runAlert(alert.id); // still true: quiet
    expect(second.evaluations[0]).toMatchObject({ value: 350, fired: false });
    expect(second.run.job_ids).toEqual([]);
    expect((await switchTo("beta")).status).toBe(200);
    const third = await runAlert(alert.id); // 10: false
    expect(third.evaluations[0]).toMatchObject({ value: 10, fired: false });
    expect((await switchTo("alpha")).status).toBe(200);
    const fourth = await runAlert(alert.id); // true again after false: fires
    expect(fourth.evaluations[0]).toMatchObject({ value: 350, fired: true });
    expect(fourth.run.job_ids).toHaveLength(1);

    const { evaluations } = await getAlert(alert.id);
    expect(evaluations.map((e) => [e.value, e.fired])).toEqual([
      [350, true],
      [10, false],
      [350, false],
      [350, true],
    ]);
    const mails = await mailsOf([...first.run.job_ids, ...fourth.run.job_ids]);
    expect(mails.map((m) => textOf(m).split("\n")[0])).toEqual(["Revenue is 350, above 100", "Revenue is 350, above 100"]);
  }, 180_000);

  it("always: fires at every run where the condition holds", async () => {
    const c = await customer("beta", [`${unique("al")}@beta.example`]);
    const alert = await createAlert({
      provided_id: c.provided_id,
      condition: { op: "lte", value: 10 },
      notify: "always",
      panel_id: "mixed",
    });
    const first = await runAlert(alert.id);
    const second = await runAlert(alert.id);
    // The table panel's first numeric column is `orders` (2 orders), not the text `label`.
    expect(first.evaluations[0]).toMatchObject({ value: 2, fired: true });
    expect(second.evaluations[0]).toMatchObject({ value: 2, fired: true });
    const mails = await mailsOf([...first.run.job_ids, ...second.run.job_ids]);
    expect(mails.map((m) => textOf(m).split("\n")[0])).toEqual(["Orders is 2, at or below 10", "Orders is 2, at or below 10"]);
  }, 180_000);

  it("compares the named column when given (total, not the first numeric column)", async () => {
    const c = await customer("beta", []);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "eq", value: 10 }, panel_id: "mixed", column: "total" });
    const { evaluations, run } = await runAlert(alert.id);
    expect(evaluations[0]).toMatchObject({ value: 10, fired: false }); // holds, but nobody to tell
    expect(run.skipped).toBe(1);
  });

  it("posts the webhook (signed) for each customer it fires for, and sends no e-mail when only callback_url is given", async () => {
    await admin("POST", "/admin/webhook_secrets/", { access_group: ws.group });
    const tag = unique("hook");
    await createTag(ws.write, tag);
    const alpha = await customer("alpha", ["not-mailed@alpha.example"], [tag]);
    await customer("alpha-child", ["not-mailed@big.example"], [tag]);
    const name = unique("alert-hook");
    const alert = await createAlert({ group_tag: tag, condition: { op: "lt", value: 500 }, callback_url: `https://webhook.test/${name}` });
    const { run, evaluations } = await runAlert(alert.id);
    expect(run.job_ids).toEqual([]);
    expect(evaluations.filter((e) => e.fired).map((e) => e.provided_id)).toEqual([alpha.provided_id]);
    let calls: { headers: Record<string, string>; body: string }[] = [];
    for (let waited = 0; calls.length < 1 && waited < 30_000; waited += 250) {
      calls = await (await fetch(`https://webhook.test/_received/${name}`)).json();
      if (calls.length < 1) await new Promise((r) => setTimeout(r, 250));
    }
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0].body)).toEqual({
      alert_id: alert.id,
      provided_id: alpha.provided_id,
      slot: run.slot,
      dashboard_embed_id: embedId,
      panel_id: "revenue",
      column: null,
      value: 350,
      condition: { op: "lt", value: 500 },
      message: "Revenue is 350, below 500",
    });
    expect(calls[0].headers["x-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
  }, 60_000);

  it("reads the dashboards of a slot's evaluations in one D1 round trip: four tagged customers cost the tick what one does", async () => {
    // Conditions that never hold: no job is started, so the tick's round trips are the claim,
    // the rule's reads, the evaluations' dashboard reads and the recorded run.
    const roundTripsFor = async (customers: number) => {
      const tag = unique("trips");
      await createTag(ws.write, tag);
      for (let i = 0; i < customers; i++) await customer("alpha", [`${unique("t")}@alpha.example`], [tag]);
      const alert = await createAlert({ group_tag: tag, condition: { op: "gt", value: 1e12 } });
      const summary = await runDueSchedules(env as never, Date.parse(alert.next_run_at));
      const { evaluations } = await getAlert(alert.id);
      expect(evaluations.map((e) => e.value)).toEqual(Array(customers).fill(350));
      await DB.prepare("DELETE FROM report_schedules").run();
      return summary;
    };
    const one = await roundTripsFor(1);
    const four = await roundTripsFor(4);
    expect(one).toMatchObject({ claimed: 1, deliveries: 0 });
    expect(four).toMatchObject({ claimed: 1, deliveries: 0 });
    expect(four.round_trips).toBe(one.round_trips);
  }, 120_000);

  it("evaluates a slot exactly once when two ticks overlap, and sends one e-mail", async () => {
    const recipient = `${unique("once")}@alpha.example`;
    const c = await customer("alpha", [recipient]);
    const alert = await createAlert({ provided_id: c.provided_id, condition: { op: "lt", value: 500 }, notify: "always" });
    const slot = alert.next_run_at as string;
    await Promise.all([tick(slot), tick(slot), tick(slot)]);
    const { runs, evaluations } = await getAlert(alert.id);
    expect(runs).toHaveLength(1);
    expect(evaluations).toHaveLength(1);
    expect(evaluations[0]).toMatchObject({ slot, fired: true });
    const mails = await mailsOf(runs[0].job_ids);
    expect(mails.filter((m) => m.to.includes(recipient))).toHaveLength(1);
  }, 120_000);
});
