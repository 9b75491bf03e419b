// Deliveries in a theme (docs/theming.md): screenshot and report jobs take theme, locale and
// time zone; schedules and alerts store theme and locale; a self-service subscription keeps its
// token's; captures wear the theme (background, font) and the report e-mail its logo and accent.
// Real Browser Rendering, D1, R2 and the local outbox.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  createCustomer,
  deliverByHand,
  deliverySetup,
  fetchDownload,
  isPng,
  jobRow,
  sentMails,
  unqueuedJob,
  waitForJob,
} from "../helpers/delivery";
import { parseMime } from "../helpers/mime";
import { decodePng } from "../helpers/png";
import { base64, createTheme, DARK, PNG_1PX } from "../helpers/themes";
import { CATALOGUES } from "../../src/view/messages";

const DB = (env as unknown as { DB: D1Database }).DB;
const FONT = (env as unknown as { TEST_THEME_FONT_BASE64: string }).TEST_THEME_FONT_BASE64;

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
let customer: string;
beforeAll(async () => {
  ctx = await deliverySetup();
  customer = ctx.customer.provided_id;
  // Night: dark, the real WOFF2 font and a logo. Night plain: the same colors, the font named but not loaded.
  const font_family = '"Theme Test Sans", monospace';
  expect(
    (
      await createTheme(ctx.write, {
        name: "Night",
        theme: { ...DARK, font_family, fonts: [{ family: "Theme Test Sans", woff2_base64: FONT }], logo_base64: base64(PNG_1PX) },
      })
    ).status,
  ).toBe(200);
  expect((await createTheme(ctx.write, { name: "Night plain", theme: { ...DARK, font_family } })).status).toBe(200);
  expect((await createTheme(ctx.write, { name: "Brand", theme: { colors: { accent: "#b91c1c" } } })).status).toBe(200);
});

const post = (path: string, body: Record<string, unknown>) => call("POST", path, { token: ctx.write, body });
const jobCount = async () => (await DB.prepare("SELECT count(*) AS n FROM jobs").first<{ n: number }>())!.n;
const storedRequest = async (jobId: string) =>
  JSON.parse((await DB.prepare("SELECT request FROM jobs WHERE id = ?").bind(jobId).first<{ request: string }>())!.request);

async function screenshot(body: Record<string, unknown>) {
  const res = await post("/api/dashboard/screenshot", { provided_id: customer, dashboard_embed_id: ctx.embedId, width: 640, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
  expect(job.status).toBe("done");
  const file = await fetchDownload(res.body.url);
  expect(isPng(file.bytes)).toBe(true);
  return { jobId: res.body.job_id as string, png: await decodePng(file.bytes) };
}

const pixel = (png: Awaited<ReturnType<typeof decodePng>>, x: number, y: number) => {
  const at = (y * png.width + x) * 4;
  return `#${[0, 1, 2].map((i) => png.data[at + i].toString(16).padStart(2, "0")).join("")}`;
};

/** How many pixels of the header band (title and customer name) differ between two captures. */
function headerDifference(a: Awaited<ReturnType<typeof decodePng>>, b: Awaited<ReturnType<typeof decodePng>>): number {
  let differing = 0;
  for (let y = 0; y < 80; y++) for (let x = 0; x < Math.min(a.width, b.width); x++) if (pixel(a, x, y) !== pixel(b, x, y)) differing++;
  return differing;
}

describe("screenshot and report take theme, locale and time zone", () => {
  it("refuses an unknown theme (422), a malformed locale and an unknown zone (400) on the field, inserting nothing; the controls pass", async () => {
    const cases: [string, Record<string, unknown>, number, string, string][] = [
      ["/api/dashboard/screenshot", { theme: "Nope" }, 422, "unknown_theme", "theme"],
      ["/api/dashboard/screenshot", { locale: "en_US" }, 400, "validation_error", "locale"],
      ["/api/dashboard/screenshot", { timezone: "Mars/Olympus" }, 400, "validation_error", "timezone"],
      ["/api/dashboard/report", { theme: "Nope", email: "a@alpha.example" }, 422, "unknown_theme", "theme"],
      ["/api/dashboard/report", { locale: "not a locale!", email: "a@alpha.example" }, 400, "validation_error", "locale"],
      ["/api/dashboard/report", { timezone: "+01:00", email: "a@alpha.example" }, 400, "validation_error", "timezone"],
    ];
    for (const [path, fields, status, code, field] of cases) {
      const before = await jobCount();
      const res = await post(path, { provided_id: customer, dashboard_embed_id: ctx.embedId, ...fields });
      expect(res.status, `${path} ${JSON.stringify(fields)}`).toBe(status);
      expect(res.body.error).toMatchObject({ code, field });
      expect(await jobCount()).toBe(before);
    }
    // Controls: a theme of the group (any case), a well-formed locale, a known zone — stored canonical.
    const ok = await post("/api/dashboard/screenshot", {
      provided_id: customer,
      dashboard_embed_id: ctx.embedId,
      theme: "brand",
      locale: "de-de",
      timezone: "europe/berlin",
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await storedRequest(ok.body.job_id)).presentation).toEqual({ theme: "brand", locale: "de-DE", timezone: "Europe/Berlin" });
    const report = await post("/api/dashboard/report", {
      provided_id: customer,
      dashboard_embed_id: ctx.embedId,
      email: "a@alpha.example",
      theme: "Brand",
      locale: "fr-FR",
    });
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    // A saved report's job checks the theme the same way.
    const saved = await post("/api/dashboard/screenshot", { provided_id: customer, report_id: "rep_nope", theme: "Nope" });
    expect(saved.status).toBe(404); // the report is checked first (404 before 422)
  });

  it("draws the PNG in the named theme: its margin pixel is the theme's background (control: the customer's built-in)", async () => {
    const themed = await screenshot({ theme: "Night" });
    const plain = await screenshot({});
    expect(pixel(themed.png, 2, 2)).toBe("#0b1020");
    expect(pixel(plain.png, 2, 2)).not.toBe("#0b1020");
    expect(pixel(plain.png, 2, 2)).toBe("#f4f6fb");
  });

  it("loads the theme's WOFF2 font in the capture: the header is drawn differently than with the font only named", async () => {
    const withFont = await screenshot({ theme: "Night" });
    const namedOnly = await screenshot({ theme: "Night plain" });
    const again = await screenshot({ theme: "Night" });
    // Control: the same theme twice draws the same header; the font makes the difference.
    expect(headerDifference(withFont.png, again.png)).toBe(0);
    expect(headerDifference(withFont.png, namedOnly.png)).toBeGreaterThan(200);
  });

  it("frames the report e-mail in the theme (background, text, accent on its link) with the logo once, in the image; control: the built-in", async () => {
    const mailOf = async (fields: Record<string, unknown>) => {
      const res = await post("/api/dashboard/report", {
        provided_id: customer,
        dashboard_embed_id: ctx.embedId,
        email: "boss@alpha.example",
        ...fields,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed")).status).toBe("done");
      const mail = parseMime((await sentMails(res.body.job_id))[0]);
      return mail.parts
        .find((p) => p.headers["content-type"]?.startsWith("text/html"))!
        .body.replace(/=\r?\n/g, "")
        .replace(/=3D/g, "=");
    };
    const themed = await mailOf({ theme: "Night" });
    // The capture carries the logo left of its title: the e-mail adds no second one.
    expect(themed.match(/<img /g)).toHaveLength(1);
    expect(themed).toContain('<img src="cid:dashboard"');
    expect(themed).toMatch(/<body style="[^"]*background:#0b1020;[^"]*color:#e8ecf8/);
    expect(themed).toMatch(/class="report-link" style="[^"]*background:#7c9cff/);
    const plain = await mailOf({});
    expect(plain).toMatch(/<body style="[^"]*background:#f4f6fb;[^"]*color:#0f172a/);
    expect(plain).toMatch(/class="report-link" style="[^"]*background:#4f46e5/);
  });
});

describe("a retry that finds its file stored", () => {
  it("frames the report e-mail in the job's theme though it draws nothing (control: a job naming no theme, the built-in)", async () => {
    const FILES = (env as unknown as { FILES: R2Bucket }).FILES;
    // A report job whose first attempt captured and stored its file, then failed to send.
    const storedJob = async (presentation: Record<string, string> | undefined) => {
      const jobId = await unqueuedJob(customer, ctx.embedId, "boss@alpha.example");
      const request = { ...(await storedRequest(jobId)), linkUrl: "http://api.test/live", ...(presentation ? { presentation } : {}) };
      const key = `jobs/${jobId}/manual.png`;
      await FILES.put(key, PNG_1PX, { httpMetadata: { contentType: "image/png" } });
      await DB.prepare(
        "UPDATE jobs SET kind = 'report', status = 'queued', file_key = ?, content_type = 'image/png', request = ? WHERE id = ?",
      )
        .bind(key, JSON.stringify(request), jobId)
        .run();
      await deliverByHand(jobId, 2);
      expect((await jobRow(jobId))?.status).toBe("done");
      const mail = parseMime((await sentMails(jobId))[0]);
      return mail.parts
        .find((p) => p.headers["content-type"]?.startsWith("text/html"))!
        .body.replace(/=\r?\n/g, "")
        .replace(/=3D/g, "=");
    };
    const themed = await storedJob({ theme: "Night", locale: "de-DE" });
    expect(themed).toMatch(/<body style="[^"]*background:#0b1020;[^"]*color:#e8ecf8/);
    expect(themed).toMatch(/class="report-link" style="[^"]*background:#7c9cff/);
    expect(themed).toMatch(/<html lang="de-DE"/);
    const plain = await storedJob(undefined);
    expect(plain).toMatch(/<body style="[^"]*background:#f4f6fb;[^"]*color:#0f172a/);
  });
});

describe("schedules and alerts store theme and locale; a subscription its token's", () => {
  const schedule = (fields: Record<string, unknown>) =>
    post("/api/create_report_schedule/", { dashboard_embed_id: ctx.embedId, provided_id: customer, cron: "0 9 * * 1", ...fields });
  const alert = (fields: Record<string, unknown>) =>
    post("/api/create_alert/", {
      dashboard_embed_id: ctx.embedId,
      provided_id: customer,
      cron: "0 9 * * 1",
      panel_id: "total",
      condition: { op: "gt", value: 0 },
      ...fields,
    });

  it("answers them (null when unset), updates and clears them, refuses 422/400 with passing controls", async () => {
    for (const create of [schedule, alert]) {
      const kind = create === schedule ? "schedule" : "alert";
      const plain = await create({});
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      expect(plain.body[kind]).toMatchObject({ theme: null, locale: null });
      const named = await create({ theme: "night", locale: "de-de" });
      expect(named.status, JSON.stringify(named.body)).toBe(200);
      expect(named.body[kind]).toMatchObject({ theme: "Night", locale: "de-DE" });
      for (const [fields, status, code, field] of [
        [{ theme: "Nope" }, 422, "unknown_theme", "theme"],
        [{ locale: "en_US" }, 400, "validation_error", "locale"],
      ] as const) {
        const refused = await create(fields);
        expect(refused.status, `${kind} ${JSON.stringify(fields)}`).toBe(status);
        expect(refused.body.error).toMatchObject({ code, field });
      }
      const update = kind === "schedule" ? "/api/update_report_schedule/" : "/api/update_alert/";
      const id = named.body[kind].id;
      const refused = await post(update, { id, theme: "Nope" });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: "unknown_theme", field: "theme" });
      const changed = await post(update, { id, theme: "Brand", locale: "fr-FR" });
      expect(changed.body[kind]).toMatchObject({ theme: "Brand", locale: "fr-FR" });
      const kept = await post(update, { id, paused: true });
      expect(kept.body[kind]).toMatchObject({ theme: "Brand", locale: "fr-FR" });
      const cleared = await post(update, { id, theme: null, locale: null });
      expect(cleared.body[kind]).toMatchObject({ theme: null, locale: null });
    }
  });

  it("a theme a schedule names cannot be deleted", async () => {
    await createTheme(ctx.write, { name: "Held", theme: {} });
    const held = await schedule({ theme: "Held" });
    const refused = await post("/api/delete_theme/", { name: "Held" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("theme_in_use");
    await post("/api/update_report_schedule/", { id: held.body.schedule.id, theme: null });
    expect((await post("/api/delete_theme/", { name: "Held" })).status).toBe(200);
  });

  it("a scheduled run's jobs are drawn in the rule's theme and locale (the time zone stays the customer's); control: a rule without", async () => {
    const themed = await schedule({ theme: "Night", locale: "de-DE", recipients: ["ops@alpha.example"], timezone: "Asia/Tokyo" });
    const plain = await schedule({ recipients: ["ops@alpha.example"] });
    const run = async (id: string) => (await post("/api/run_report_schedule/", { id })).body.run.job_ids[0] as string;
    const [themedJob, plainJob] = [await run(themed.body.schedule.id), await run(plain.body.schedule.id)];
    expect((await storedRequest(themedJob)).presentation).toEqual({ theme: "Night", locale: "de-DE" });
    expect((await storedRequest(plainJob)).presentation).toBeUndefined();
    expect((await waitForJob(ctx.read, themedJob, (s) => s === "done" || s === "failed")).status).toBe("done");
    const html = parseMime((await sentMails(themedJob))[0])
      .parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!
      .body.replace(/=\r?\n/g, "")
      .replace(/=3D/g, "=");
    // The rule's locale: the button and the unsubscribe footer in German, on a German page.
    expect(html).toContain('<html lang="de-DE" dir="ltr">');
    expect(html).toContain(`>${CATALOGUES.de["mail.open_dashboard"]}</a>`);
    expect(html).toContain(CATALOGUES.de["mail.footer"]);
    // Its unsubscribe page wears the rule's theme too (control: the plain rule's, built-in).
    const unsubscribePage = async (mailHtml: string) => {
      const token = /\/unsubscribe\/([0-9a-f]{64})/.exec(mailHtml)![1];
      const res = await call("GET", `/unsubscribe/${token}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Security-Policy")).toContain("img-src 'self'");
      return res.body as string;
    };
    const themedPage = await unsubscribePage(html);
    expect(themedPage).toContain('data-theme="Night"');
    expect(themedPage).toContain("--cd-bg:#0b1020");
    expect(themedPage).toMatch(/<img class="cd-logo" src="\/theme-assets\/[0-9a-f]{64}"/);
    expect((await waitForJob(ctx.read, plainJob, (s) => s === "done" || s === "failed")).status).toBe("done");
    const plainHtml = parseMime((await sentMails(plainJob))[0])
      .parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!
      .body.replace(/=\r?\n/g, "")
      .replace(/=3D/g, "=");
    const plainPage = await unsubscribePage(plainHtml);
    expect(plainPage).toContain('data-theme="builtin"');
    expect(plainPage).not.toContain('cd-logo" src');
  });

  it("a self-service subscription stores its token's theme and locale; a token without them stores null", async () => {
    const subscriber = await createCustomer(ctx.write, { provided_id: `${customer}-sub`, name: "Sub" });
    const subscribe = async (claims: Record<string, unknown>) => {
      const minted = await post("/api/generate_embed_token/", {
        provided_id: subscriber.provided_id,
        dashboard_embed_id: ctx.embedId,
        user_email: "viewer@alpha.example",
        ...claims,
      });
      expect(minted.status, JSON.stringify(minted.body)).toBe(200);
      const res = await call("POST", `/embed/${ctx.embedId}/subscriptions`, {
        body: { frequency: "daily", hour: 7, timezone: "UTC" },
        headers: { Authorization: `Bearer ${minted.body.token}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.subscription;
    };
    expect(await subscribe({ theme: "night", locale: "ja-JP" })).toMatchObject({ theme: "Night", locale: "ja-JP", source: "embed" });
    expect(await subscribe({})).toMatchObject({ theme: null, locale: null });
  });
});
