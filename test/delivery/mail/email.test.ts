import { beforeAll, describe, expect, it } from "vitest";
import { base64Bytes, parseMime } from "../../helpers/mime";
import {
  bindings,
  call,
  deliverySetup,
  fetchDownload,
  isPdf,
  isPng,
  pngWidth,
  sentMails,
  sha256,
  waitForJob,
} from "../../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
let teamId: number;
beforeAll(async () => {
  ctx = await deliverySetup();
  teamId = (await call("POST", "/api/create_user_group/", { token: ctx.write, body: { user_group_id: ctx.customer.provided_id } })).body
    .user_group.team_id;
});

async function deliver(path: string, body: Record<string, unknown>) {
  const res = await call("POST", path, {
    token: ctx.write,
    body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
  expect(job.status).toBe("done");
  const mails = await sentMails(res.body.job_id);
  expect(mails).toHaveLength(1);
  return { res, mail: parseMime(mails[0]) };
}

describe("screenshot e-mail", () => {
  it("attaches the PNG with the default subject and answers without url", async () => {
    const { res, mail } = await deliver("/api/dashboard/screenshot", { email: "ops@alpha.example" });
    expect(res.body).toEqual({ success: 1, job_id: expect.any(String) });
    expect(mail.subject).toBe("Requested Data Export: dashboard_screenshot_download.png (image)");
    expect(mail.to).toContain("ops@alpha.example");
    expect(mail.from).toContain("reports@example.com");
    const attachment = mail.parts.find((p) => (p.headers["content-disposition"] ?? "").startsWith("attachment"));
    expect(attachment?.headers["content-type"]).toContain("image/png");
    expect(attachment?.headers["content-disposition"]).toContain('filename="dashboard_screenshot_download.png"');
    expect(isPng(base64Bytes(attachment!.body))).toBe(true);
    expect(mail.parts.some((p) => p.headers["content-type"]?.startsWith("text/plain"))).toBe(true);
  });

  it("attaches a PDF with a custom subject and file name", async () => {
    const { mail } = await deliver("/api/dashboard/screenshot", {
      email: "ops@alpha.example",
      export_type: "pdf",
      subject: "Your numbers",
      download_file_name: "numbers",
    });
    expect(mail.subject).toBe("Your numbers");
    const attachment = mail.parts.find((p) => (p.headers["content-disposition"] ?? "").startsWith("attachment"));
    expect(attachment?.headers["content-type"]).toContain("application/pdf");
    expect(attachment?.headers["content-disposition"]).toContain('filename="numbers.pdf"');
    expect(isPdf(base64Bytes(attachment!.body))).toBe(true);
  });
});

describe("report e-mail", () => {
  it("shows the screenshot inline (cid:) linked to the share link, with a plain-text part", async () => {
    const { mail } = await deliver("/api/dashboard/report", { email: "someone@alpha.example" });
    expect(mail.subject).toBe("Dashboard Email Report");
    const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
    const text = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/plain"))!.body;
    const inline = mail.parts.find((p) => p.headers["content-id"] === "<dashboard>")!;
    expect(inline.headers["content-type"]).toContain("image/png");
    expect(inline.headers["content-disposition"]).toContain("inline");
    expect(isPng(base64Bytes(inline.body))).toBe(true);
    // Drawn for the 720 px the e-mail shows it at, with twice the pixels (sharp, legible).
    expect(pngWidth(base64Bytes(inline.body))).toBe(1440);
    expect(html).toContain('width="720"');
    const link = /<a href="(http:\/\/api\.test\/share\/[0-9a-f]{64})"[^>]*><img src="cid:dashboard"/.exec(html)?.[1];
    expect(link).toBeDefined();
    expect(text).toContain(link);

    // The share link renders that dashboard for that customer.
    const share = await fetchDownload(link!);
    expect(share.status).toBe(200);
    const page = new TextDecoder().decode(share.bytes);
    expect(page).toContain("Alpha GmbH");
    expect(page).toContain('<svg class="chart"');
    // Nobody scrolls a share link's tables sideways on every device: the page is "still", its table cells wrap.
    expect(page).toMatch(/<main class="dashboard[^"]* still"/);
    expect((await fetchDownload(`http://api.test/share/${"a".repeat(64)}`)).status).toBe(404);

    // Opened on a phone, the page asks again with the window's width (the frame script): drawn for it, in one column.
    expect(page).toMatch(/<main class="dashboard[^"]*"[^>]* data-width="1280" data-fit-window="1232">/);
    const phone = new TextDecoder().decode((await fetchDownload(`${link}?width=375`)).bytes);
    expect(phone).toMatch(/<main class="dashboard stacked still"[^>]* data-width="375">/);
    expect(phone).toContain("Alpha GmbH");
  });

  it("answers a share link whose customer is gone with its 404 page, after one look at the primary", async () => {
    const token = "b".repeat(64);
    await bindings.LINKS.put(
      `share:${await sha256(token)}`,
      JSON.stringify({ customerId: 987_654_321, embedId: ctx.embedId, variables: {} }),
    );
    const gone = await fetchDownload(`http://api.test/share/${token}`);
    expect(gone.status).toBe(404);
    expect(new TextDecoder().decode(gone.bytes)).toContain("This share link is unknown or has expired.");
    expect(gone.headers.get("X-D1-Session")).toBe("first-primary");
    expect(gone.headers.get("X-D1-Primary-Round-Trips")).toBe("1");
  });

  it("renders the version tagged email, else production, else the newest", async () => {
    const { admin, dashboard, kpi } = await import("../../helpers/delivery");
    const version = (label: string) => ({ panels: [kpi("which", ctx.schema, `SELECT '${label}' AS value`)] });
    const embedId = await dashboard(version("production version"), ["production"]);
    const save = async (label: string) =>
      (await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: version(label) })).body.version.version_number;
    const emailVersion = await save("email version");
    await save("newest draft");

    const shown = async () => {
      const { mail } = await deliver("/api/dashboard/report", { dashboard_embed_id: embedId, email: "versions@alpha.example" });
      const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
      const link = /href="(http:\/\/api\.test\/share\/[0-9a-f]{64})"/.exec(html)![1];
      return new TextDecoder().decode((await fetchDownload(link)).bytes);
    };
    expect(await shown()).toContain("production version");
    await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag: "email", version_number: emailVersion });
    expect(await shown()).toContain("email version");

    const untagged = await dashboard(version("only version"));
    await admin("POST", "/admin/dashboard_versions/", { embed_id: untagged, definition: version("newest draft") });
    const { mail } = await deliver("/api/dashboard/report", { dashboard_embed_id: untagged, email: "versions@alpha.example" });
    const link = /href="(http:\/\/api\.test\/share\/[0-9a-f]{64})"/.exec(
      mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body,
    )![1];
    expect(new TextDecoder().decode((await fetchDownload(link)).bytes)).toContain("newest draft");
  });

  it("links to custom_url when given", async () => {
    const { mail } = await deliver("/api/dashboard/report", {
      email: "someone@alpha.example",
      custom_url: "https://app.vendor.example/reports/7?x=1&y=2",
      subject: "Weekly",
    });
    expect(mail.subject).toBe("Weekly");
    const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
    expect(html).toContain('<a href="https://app.vendor.example/reports/7?x=1&amp;y=2"');
    expect(html).not.toContain("/share/");
  });

  it("wraps the report in the end user's sanitised header and footer", async () => {
    await call("POST", "/api/create_end_user/", {
      token: ctx.write,
      body: {
        provided_id: "boss",
        email: "Boss@Alpha.example",
        customer_id: teamId,
        attributes: {
          header: '<h2 onclick="steal()">Hello <b>Boss</b></h2><script>alert(1)</script><img src="x" onerror="alert(2)">',
          footer:
            '<p>Bye <a href="javascript:alert(3)">unsubscribe</a> <a href="https://vendor.example/prefs">prefs</a></p><iframe src="https://evil.example"></iframe>',
        },
      },
    });
    const { mail } = await deliver("/api/dashboard/report", { email: "boss@alpha.example" });
    const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
    expect(html).toContain("<h2>Hello <b>Boss</b></h2>");
    expect(html).toContain('<a href="https://vendor.example/prefs" rel="noopener noreferrer">prefs</a>');
    for (const bad of ["<script", "onclick", "onerror", "javascript:", "<iframe", "alert("]) expect(html).not.toContain(bad);
    expect(html.indexOf("Hello")).toBeLessThan(html.indexOf("cid:dashboard"));
    expect(html.indexOf("cid:dashboard")).toBeLessThan(html.indexOf("prefs"));
  });

  it("uses no header or footer for a recipient who is not an end user of that customer", async () => {
    const { mail } = await deliver("/api/dashboard/report", { email: "stranger@other.example" });
    const html = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!.body;
    expect(html).not.toContain("report-header");
    expect(html).not.toContain("Boss");
  });
});

describe("local outbox (development only)", () => {
  it("lists every sent e-mail and opens it as sent", async () => {
    const { res } = await deliver("/api/dashboard/screenshot", { email: "outbox@alpha.example", subject: "Outbox check" });
    const list = await call("GET", "/_dev/outbox");
    expect(list.status).toBe(200);
    expect(list.body).toContain("outbox@alpha.example");
    const href = new RegExp(`href="(/_dev/outbox/[^"]*${res.body.job_id}[^"]*)"`).exec(list.body)?.[1];
    expect(href).toBeDefined();
    const message = await call("GET", decodeURIComponent(href!));
    expect(message.status).toBe(200);
    expect(parseMime(message.body).subject).toBe("Outbox check");
  });
});
