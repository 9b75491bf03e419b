import { createScheduledController, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { call, createCustomer, createTag, unique, workspace } from "../../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../../helpers/dashboards";
import { fetchDownload, waitForJob } from "../../helpers/delivery";
import { parseMime } from "../../helpers/mime";

const bindings = env as unknown as { DB: D1Database; DEMO_DATA: D1Database; FILES: R2Bucket };
const HOUR = 3_600_000;

/**
 * Fires the Worker's own `scheduled` handler, as the every-minute Cron Trigger does, inside
 * workerd with the real local bindings (D1, Queues, R2, Browser Rendering, send_email).
 */
async function tick(at: string | number) {
  const scheduledTime = typeof at === "number" ? at : Date.parse(at);
  // The handler awaits its whole tick (claims and job starts), so the tick is over when this returns.
  await worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env as never);
}

let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let schema: number;
let demo: number;
let other: number;

beforeAll(async () => {
  await seedOrders();
  ws = await workspace();
  ({ schema, demo, other } = await sources());
  embedId = await dashboard(
    {
      title: "Monthly numbers",
      panels: [kpi("revenue", schema, "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.properties.orders_of}}")],
    },
    ["production"],
  );
});

// Ticks run every due schedule of the database: each test's schedules end with the test.
afterEach(async () => {
  await bindings.DB.prepare("DELETE FROM report_schedules").run();
});

async function customerWithOrders(ordersOf: string, emails: string[], tags: string[] = [], token = ws.write) {
  return createCustomer(token, {
    provided_id: unique(ordersOf),
    name: `${ordersOf} Ltd`,
    emails,
    group_tags: tags,
    properties: { orders_of: ordersOf },
    mapping: { [schema]: demo },
  });
}

async function createSchedule(body: Record<string, unknown>) {
  const res = await call("POST", "/api/create_report_schedule/", { token: ws.write, body: { dashboard_embed_id: embedId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.schedule;
}

async function runsOf(id: string) {
  const res = await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id } });
  expect(res.status).toBe(200);
  return res.body as { schedule: any; runs: any[] };
}

/** Every e-mail in the local outbox, parsed, with the job that sent it. */
async function outbox() {
  const listed = await bindings.FILES.list({ prefix: "outbox/", include: ["customMetadata"] });
  return Promise.all(
    listed.objects.map(async (o) => ({
      jobId: o.customMetadata?.job_id ?? "",
      mail: parseMime(await (await bindings.FILES.get(o.key))!.text()),
    })),
  );
}

async function finish(jobIds: string[]) {
  for (const id of jobIds) expect((await waitForJob(ws.read, id, (s) => s === "done" || s === "failed", 90_000)).status).toBe("done");
}

/** 08:00 Berlin on the first of a month (month 0-based, may overflow), as the UTC minute. */
function berlinFirstAt8(year: number, month: number): string {
  const guess = new Date(Date.UTC(year, month, 1, 7)); // 08:00 in winter (UTC+1)
  const hour = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", hourCycle: "h23" }).format(guess);
  const utc = hour === "09" ? new Date(guess.getTime() - 3_600_000) : guess; // summer (UTC+2)
  return utc.toISOString().replace(/:00\.000Z$/, ":00Z");
}

/** The next two "0 8 1 * *" Europe/Berlin slots after now (the test must not age). */
function nextMonthlySlots(): [string, string] {
  const now = new Date();
  let month = now.getUTCMonth();
  if (Date.parse(berlinFirstAt8(now.getUTCFullYear(), month)) <= now.getTime()) month += 1;
  return [berlinFirstAt8(now.getUTCFullYear(), month), berlinFirstAt8(now.getUTCFullYear(), month + 1)];
}

describe("the scheduler, driven through the Worker's scheduled handler", () => {
  it("sends every tagged customer its own report at 08:00 Berlin on the first of the month; customers without e-mails are skipped", async () => {
    const tag = unique("monthly");
    await createTag(ws.write, tag);
    const alpha = await customerWithOrders("alpha", ["anna@alpha.example", "ALEX@alpha.example"], [tag]);
    const beta = await customerWithOrders("beta", ["bob@beta.example"], [tag]);
    await customerWithOrders("alpha", [], [tag]); // no recipients: skipped
    await customerWithOrders("beta", ["not-me@beta.example"], []); // not tagged
    const elsewhere = await workspace();
    await customerWithOrders("alpha", ["stranger@other.example"], [tag], elsewhere.write); // same tag, other access group

    const schedule = await createSchedule({ group_tag: tag, cron: "0 8 1 * *", timezone: "Europe/Berlin", subject: "Your month" });
    const [slot, following] = nextMonthlySlots();
    expect(schedule.next_run_at).toBe(slot);

    await tick(new Date(Date.parse(slot) - 60_000).toISOString()); // a minute early: nothing
    expect((await runsOf(schedule.id)).runs).toEqual([]);
    await tick(slot);

    const { schedule: after, runs } = await runsOf(schedule.id);
    expect(after.next_run_at).toBe(following);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slot, trigger: "schedule", skipped: 1 });
    expect(runs[0].job_ids).toHaveLength(3);
    await finish(runs[0].job_ids);
    expect((await runsOf(schedule.id)).runs[0].status).toBe("done");

    const mails = (await outbox()).filter((m) => runs[0].job_ids.includes(m.jobId));
    const to = mails.map((m) => m.mail.to.toLowerCase());
    expect(to).toHaveLength(3);
    for (const address of ["alex@alpha.example", "anna@alpha.example", "bob@beta.example"])
      expect(to.filter((t) => t.includes(address))).toHaveLength(1);
    for (const { mail } of mails) {
      expect(mail.subject).toBe("Your month");
      const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
      const link = /href="(http:\/\/api\.test\/share\/[0-9a-f]{64})"/.exec(html)![1];
      const page = new TextDecoder().decode((await fetchDownload(link)).bytes);
      // Each customer's own numbers: alpha's orders sum to 350, beta's to 10.
      if (mail.to.toLowerCase().includes("alpha")) {
        expect(html).toContain(`Dashboard report for ${alpha.name}`);
        expect(page).toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?350</);
        expect(page).not.toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?10</);
      } else {
        expect(html).toContain(`Dashboard report for ${beta.name}`);
        expect(page).toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?10</);
        expect(page).not.toMatch(/class="kpi-value"[^>]*>(?:<bdi[^>]*>)?350</);
      }
    }
  }, 180_000);

  it("runs a slot once when the scheduler fires twice for the same minute, and once for two concurrent firings", async () => {
    const recipient = `${unique("once")}@gamma.example`;
    const c = await customerWithOrders("beta", [recipient]);
    const schedule = await createSchedule({ provided_id: c.provided_id, cron: "0 * * * *" });
    const first = schedule.next_run_at as string;
    const second = new Date(Date.parse(first) + HOUR).toISOString().replace(".000Z", "Z");

    await tick(first);
    await tick(first);
    await Promise.all([tick(second), tick(second), tick(Date.parse(second) + 20_000)]);

    const { runs } = await runsOf(schedule.id);
    expect(runs.map((r) => r.slot)).toEqual([second, first]);
    expect(runs.every((r) => r.job_ids.length === 1)).toBe(true);
    await finish(runs.flatMap((r) => r.job_ids));
    const sent = (await outbox()).filter((m) => m.mail.to.includes(recipient));
    expect(sent).toHaveLength(2); // one e-mail per recipient per slot
    const claims = await bindings.DB.prepare("SELECT count(*) AS n FROM report_schedule_runs WHERE schedule_id = ?")
      .bind(schedule.id)
      .first<{ n: number }>();
    expect(claims!.n).toBe(2);

    // Even a schedule put back to a slot that already ran (e.g. restored from a backup) does
    // not run it again: the claim's unique key refuses the slot, and no job is started.
    const jobsBefore = await bindings.DB.prepare("SELECT count(*) AS n FROM jobs").first<{ n: number }>();
    await bindings.DB.prepare("UPDATE report_schedules SET next_run_at = ? WHERE id = ?").bind(first, schedule.id).run();
    await tick(first);
    expect((await runsOf(schedule.id)).runs.map((r) => r.slot)).toEqual([second, first]);
    expect(await bindings.DB.prepare("SELECT count(*) AS n FROM jobs").first<{ n: number }>()).toEqual(jobsBefore);
  }, 180_000);

  it("after downtime runs only the most recent of three missed slots, once", async () => {
    const c = await customerWithOrders("alpha", [`${unique("late")}@alpha.example`]);
    const schedule = await createSchedule({ provided_id: c.provided_id, cron: "15 * * * *", format: "image" });
    const missed = [0, 1, 2].map((h) => new Date(Date.parse(schedule.next_run_at) + h * HOUR).toISOString().replace(".000Z", "Z"));

    await tick(Date.parse(missed[2]) + 10 * 60_000); // the first tick after the outage, 10 minutes past the third slot
    await tick(Date.parse(missed[2]) + 11 * 60_000);

    const { schedule: after, runs } = await runsOf(schedule.id);
    expect(runs.map((r) => r.slot)).toEqual([missed[2]]);
    expect(after.next_run_at).toBe(new Date(Date.parse(missed[2]) + HOUR).toISOString().replace(".000Z", "Z"));
    await finish(runs[0].job_ids);
    const [mail] = (await outbox()).filter((m) => m.jobId === runs[0].job_ids[0]);
    // format image: the screenshot e-mail with the PNG attached
    expect(
      mail.mail.parts.some(
        (p) => (p.headers["content-disposition"] ?? "").startsWith("attachment") && p.headers["content-type"]?.includes("image/png"),
      ),
    ).toBe(true);
  }, 180_000);

  it("keeps a paused schedule silent, and resumes from the next slot without catching up", async () => {
    const c = await customerWithOrders("alpha", [`${unique("paused")}@alpha.example`]);
    const schedule = await createSchedule({ provided_id: c.provided_id, cron: "*/10 * * * *", paused: true });
    await tick(Date.now() + HOUR);
    expect((await runsOf(schedule.id)).runs).toEqual([]);
    // Paused for a while: the slot it last knew is two hours gone, with eleven more after it.
    const stale = new Date(Date.now() - 2 * HOUR).toISOString().replace(/:\d\d\.\d+Z$/, ":00Z");
    await bindings.DB.prepare("UPDATE report_schedules SET next_run_at = ? WHERE id = ?").bind(stale, schedule.id).run();
    const resumed = await call("POST", "/api/update_report_schedule/", { token: ws.write, body: { id: schedule.id, paused: false } });
    const next = resumed.body.schedule.next_run_at as string;
    expect(Date.parse(next)).toBeGreaterThan(Date.now());
    expect(Date.parse(next) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    // The first tick after resuming runs that next slot, and only it: none of the slots
    // that passed while paused is caught up.
    await tick(next);
    const { runs } = await runsOf(schedule.id);
    expect(runs.map((r) => r.slot)).toEqual([next]);
    expect(runs[0].job_ids).toHaveLength(1);
    await finish(runs[0].job_ids);
  }, 180_000);

  it("reports a run partial when one customer's report was sent and another's failed", async () => {
    const tag = unique("mixed");
    await createTag(ws.write, tag);
    // A table only the demo data source has: a customer mapped to the other one sees every
    // panel fail, so its job fails (after its retries) while the other's is sent.
    await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS demo_only (value REAL)").run();
    const onlyDemo = await dashboard({ title: "Demo only", panels: [kpi("v", schema, "SELECT count(*) AS value FROM demo_only")] }, [
      "production",
    ]);
    await customerWithOrders("alpha", [`${unique("ok")}@alpha.example`], [tag]);
    await createCustomer(ws.write, {
      provided_id: unique("other"),
      emails: [`${unique("ko")}@beta.example`],
      group_tags: [tag],
      mapping: { [schema]: other },
    });
    const schedule = await createSchedule({ group_tag: tag, cron: "0 6 * * *", dashboard_embed_id: onlyDemo });
    await tick(schedule.next_run_at);
    const { runs } = await runsOf(schedule.id);
    expect(runs[0].job_ids).toHaveLength(2);
    const ended = [];
    for (const id of runs[0].job_ids) ended.push((await waitForJob(ws.read, id, (s) => s === "done" || s === "failed", 90_000)).status);
    expect(ended.sort()).toEqual(["done", "failed"]);
    expect((await runsOf(schedule.id)).runs[0].status).toBe("partial");
  }, 180_000);

  it("counts a run whose fan-out never finished as running, then failed after 15 minutes", async () => {
    const c = await customerWithOrders("beta", [`${unique("died")}@beta.example`]);
    const schedule = await createSchedule({ provided_id: c.provided_id, cron: "30 * * * *" });
    await tick(schedule.next_run_at);
    await finish((await runsOf(schedule.id)).runs[0].job_ids);
    // As if the Worker had died between claiming the slot and recording its deliveries.
    const died = (minutesAgo: number) =>
      bindings.DB.prepare(
        "UPDATE report_schedule_runs SET fanned_out_at = NULL, job_ids = '[]', created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?) WHERE schedule_id = ?",
      )
        .bind(`-${minutesAgo} minutes`, schedule.id)
        .run();
    await died(14);
    expect((await runsOf(schedule.id)).runs[0].status).toBe("running");
    await died(16);
    expect((await runsOf(schedule.id)).runs[0].status).toBe("failed");
  }, 180_000);

  it("a run whose deliveries cannot start is failed, and counts them", async () => {
    const c = await customerWithOrders("alpha", [`${unique("nodash")}@alpha.example`]);
    const bare = await dashboard({ panels: [kpi("x", schema, "SELECT 1 AS value")] });
    const schedule = await createSchedule({ provided_id: c.provided_id, cron: "0 5 * * *", dashboard_embed_id: bare });
    // The dashboard loses every version before the slot: nothing can be rendered.
    await bindings.DB.prepare("DELETE FROM dashboard_versions WHERE dashboard_id = (SELECT id FROM dashboards WHERE embed_id = ?)")
      .bind(bare)
      .run();
    await tick(schedule.next_run_at);
    const { runs } = await runsOf(schedule.id);
    expect(runs).toEqual([{ slot: schedule.next_run_at, trigger: "schedule", status: "failed", job_ids: [], skipped: 0 }]);
  });
});
