import { beforeAll, describe, expect, it } from "vitest";
import { downloadFileName } from "../../src/delivery/service";
import { bindings, call, sha256, deliverySetup, fetchDownload, isPdf, isPng, pngWidth, waitForJob } from "./helpers";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

describe("POST /api/dashboard/screenshot with a download link", () => {
  it("answers at once with job_id and url; the link gives 202, then the PNG at the requested width", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, width: 900 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, job_id: expect.stringMatching(/^job_/), url: expect.stringMatching(/^http:\/\/api\.test\/api\/downloads\/[0-9a-f]{64}$/) });
    const pending = await fetchDownload(res.body.url);
    expect(pending.status).toBe(202);
    expect(pending.headers.get("Retry-After")).toBe("2");

    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
    expect(job).toMatchObject({ id: res.body.job_id, kind: "screenshot", status: "done", attempts: 1, error: null });
    expect(job.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const file = await fetchDownload(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("image/png");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="dashboard_screenshot_download.png"');
    expect(isPng(file.bytes)).toBe(true);
    expect(pngWidth(file.bytes)).toBe(900);

    // Expired (the KV entry is gone) or unknown: 404.
    const token = res.body.url.split("/").pop();
    const digest = await sha256(token);
    await bindings.DOWNLOADS.delete(`download:${digest}`);
    expect((await fetchDownload(res.body.url)).status).toBe(404);
    expect((await fetchDownload(`http://api.test/api/downloads/${"0".repeat(64)}`)).status).toBe(404);
  });

  it("produces a PDF with the given file name (extension not doubled)", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, export_type: "pdf", download_file_name: "Quarterly report.pdf" },
    });
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
    const file = await fetchDownload(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="Quarterly report.pdf"');
    expect(isPdf(file.bytes)).toBe(true);
  });
});

describe("download file names", () => {
  it.each([
    [undefined, "image", "dashboard_screenshot_download.png"],
    [undefined, "pdf", "dashboard_screenshot_download.pdf"],
    ["report.png", "image", "report.png"],
    ["REPORT.PDF", "pdf", "REPORT.PDF"],
    ["report.png", "pdf", "report.png.pdf"],
    ['evil"; filename=x.exe\r\n', "image", "evil_ filename_x.exe_.png"],
    ["../../etc/passwd", "pdf", "_.._etc_passwd.pdf"],
    ["Übersicht März", "image", "_bersicht M_rz.png"],
  ] as const)("%s as %s → %s", (name, type, expected) => {
    expect(downloadFileName(name, type)).toBe(expected);
  });
});
