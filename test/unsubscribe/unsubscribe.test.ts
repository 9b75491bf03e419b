import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, sha256, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { fetchDownload, sentMails, waitForJob } from "../helpers/delivery";
import { parseMime } from "../helpers/mime";

const DB = (env as unknown as { DB: D1Database }).DB;
let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let schema: number;
let demo: number;

beforeAll(async () => {
  await seedOrders();
  ws = await workspace();
  ({ schema, demo } = await sources());
  embedId = await dashboard(
    { title: "Numbers", panels: [kpi("revenue", schema, "SELECT SUM(amount) AS value FROM orders WHERE customer_id = 'alpha'")] },
    ["production"],
  );
});

/** A schedule for a fresh customer with two addresses, run once by hand: its two e-mails, raw. */
async function scheduleWithTwoRecipients(format = "report") {
  const first = `${unique("first")}@alpha.example`;
  const second = `${unique("second")}@alpha.example`;
  const customer = await createCustomer(ws.write, {
    provided_id: unique("unsub"),
    name: "Alpha",
    emails: [first, second],
    mapping: { [schema]: demo },
  });
  const created = await call("POST", "/api/create_report_schedule/", {
    token: ws.write,
    body: { dashboard_embed_id: embedId, provided_id: customer.provided_id, cron: "0 9 * * *", format },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { id: created.body.schedule.id as string, first, second };
}

async function runOnce(id: string) {
  const res = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const jobId of res.body.run.job_ids)
    expect((await waitForJob(ws.read, jobId, (s) => s === "done" || s === "failed", 90_000)).status).toBe("done");
  const mails = (await Promise.all((res.body.run.job_ids as string[]).map(sentMails))).flat();
  return { run: res.body.run, mails };
}

const linkOf = (raw: string) => /^List-Unsubscribe: <(http:\/\/api\.test\/unsubscribe\/([0-9a-f]{64}))>$/m.exec(raw);

describe("unsubscribe links (RFC 8058)", () => {
  it("puts List-Unsubscribe and List-Unsubscribe-Post in every scheduled e-mail, and the same link in its footer", async () => {
    const { mails } = await runOnce((await scheduleWithTwoRecipients()).id);
    expect(mails).toHaveLength(2);
    const links = new Set<string>();
    for (const raw of mails) {
      const link = linkOf(raw);
      expect(link, raw.slice(0, 600)).not.toBeNull();
      expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      const mail = parseMime(raw);
      const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
      const text = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/plain"))!.body;
      expect(html).toContain(`href="${link![1]}"`);
      expect(text).toContain(link![1]);
      links.add(link![1]);
    }
    expect(links.size).toBe(2); // one link per address
  }, 180_000);

  it("also in a screenshot-format schedule's e-mail (pdf attached)", async () => {
    const { mails } = await runOnce((await scheduleWithTwoRecipients("pdf")).id);
    for (const raw of mails) {
      expect(linkOf(raw)).not.toBeNull();
      const html = parseMime(raw).parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
      expect(html).toContain("/unsubscribe/");
    }
  }, 180_000);

  it("a GET shows a confirmation page and changes nothing; the one-click POST removes that address for good; later runs skip it and still mail the others", async () => {
    const { id, first, second } = await scheduleWithTwoRecipients();
    const { mails } = await runOnce(id);
    const raw = mails.find((m) => parseMime(m).to.includes(first))!;
    const [, url, token] = linkOf(raw)!;

    const page = await fetchDownload(url);
    expect(page.status).toBe(200);
    const html = new TextDecoder().decode(page.bytes);
    expect(html).toContain(first.toLowerCase());
    expect(html).toMatch(/<form method="post">/);
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect((await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id } })).body.unsubscribed).toEqual([]);

    // A mail client's one-click POST (form body), then a second one with another content type: both fine.
    const oneClick = await call("POST", `/unsubscribe/${token}`, {
      rawBody: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(oneClick.status).toBe(200);
    expect(oneClick.body).toContain("You are unsubscribed");
    const again = await call("POST", `/unsubscribe/${token}`, { rawBody: "{}", headers: { "Content-Type": "text/plain" } });
    expect(again.status).toBe(200);

    const got = await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id } });
    expect(got.body.unsubscribed).toEqual([first.toLowerCase()]);

    const later = await runOnce(id);
    expect(later.run.skipped).toBe(1);
    expect(later.run.job_ids).toHaveLength(1);
    expect(later.mails.map((m) => parseMime(m).to)).toEqual([expect.stringContaining(second)]);
    // The confirmation page now says it is done, with no form.
    expect(new TextDecoder().decode((await fetchDownload(url)).bytes)).toContain("You are unsubscribed");
  }, 240_000);

  it("keeps only each token's SHA-256: no table holds the token itself", async () => {
    const { id } = await scheduleWithTwoRecipients();
    const { mails } = await runOnce(id);
    const token = linkOf(mails[0])![2];
    const stored = await DB.prepare("SELECT token_hash FROM unsubscribe_tokens WHERE schedule_id = ?")
      .bind(id)
      .all<{ token_hash: string }>();
    expect(stored.results.map((r) => r.token_hash)).toContain(await sha256(token));
    const tables = await DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    ).all<{ name: string }>();
    for (const { name } of tables.results) {
      const rows = await DB.prepare(`SELECT * FROM "${name}"`).all();
      expect(JSON.stringify(rows.results), name).not.toContain(token);
    }
  }, 180_000);

  it("answers 404 pages for an unknown token, a malformed one, and once the schedule is deleted (control: 200 before)", async () => {
    const { id } = await scheduleWithTwoRecipients();
    const { mails } = await runOnce(id);
    const token = linkOf(mails[0])![2];
    expect((await call("GET", `/unsubscribe/${token}`)).status).toBe(200);
    expect((await call("GET", `/unsubscribe/${"0".repeat(64)}`)).status).toBe(404);
    expect((await call("POST", `/unsubscribe/${"0".repeat(64)}`, { rawBody: "List-Unsubscribe=One-Click" })).status).toBe(404);
    const malformed = await call("GET", "/unsubscribe/not-a-token");
    expect(malformed.status).toBe(404);
    expect(malformed.body).toContain("Link not available");
    expect((await call("POST", "/api/delete_report_schedule/", { token: ws.write, body: { id } })).status).toBe(200);
    expect((await call("GET", `/unsubscribe/${token}`)).status).toBe(404);
    expect((await call("POST", `/unsubscribe/${token}`, { rawBody: "List-Unsubscribe=One-Click" })).status).toBe(404);
  }, 180_000);

  it("another access group sees neither the schedule nor its unsubscribed addresses (404 schedule_not_found)", async () => {
    const { id } = await scheduleWithTwoRecipients();
    const other = await workspace();
    const res = await call("POST", "/api/get_report_schedule/", { token: other.read, body: { id } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("schedule_not_found");
    expect(JSON.stringify(res.body)).not.toContain("unsubscribed");
  });
});
