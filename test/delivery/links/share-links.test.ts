import { beforeAll, describe, expect, it } from "vitest";
import { bindings, call, createCustomer, deliverySetup, fetchDownload, unique, waitForJob } from "../../helpers/delivery";

// A share link is a capability of the customer token it was made under (docs/delivery.md, "What is never delivered"):
// refresh_customer_token or deleting the customer ends it, like a signed embed token.

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

/** A report for the customer; its share link, read from the job as soon as it exists. */
async function shareLink(providedId: string): Promise<{ link: string; jobId: string }> {
  const res = await call("POST", "/api/dashboard/report", {
    token: ctx.write,
    body: { provided_id: providedId, dashboard_embed_id: ctx.embedId, email: "share@alpha.example" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const job = await bindings.DB.prepare("SELECT request FROM jobs WHERE id = ?").bind(res.body.job_id).first<{ request: string }>();
  return { link: JSON.parse(job!.request).linkUrl as string, jobId: res.body.job_id };
}

const page = async (link: string) => {
  const res = await fetchDownload(link);
  return { status: res.status, text: new TextDecoder().decode(res.bytes) };
};

describe("share links end with the customer token", () => {
  it("stops working (404 page) after refresh_customer_token; a new report's link works (the control)", async () => {
    const customer = await createCustomer(ctx.write, {
      provided_id: unique("alpha-share"),
      name: "Alpha Refresh",
      mapping: { [ctx.schema]: ctx.demo },
    });
    const { link, jobId } = await shareLink(customer.provided_id);
    const before = await page(link);
    expect(before.status).toBe(200);
    expect(before.text).toContain("Alpha Refresh");

    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: customer.token } });
    expect(refreshed.status).toBe(200);
    const after = await page(link);
    expect(after.status).toBe(404);
    expect(after.text).toContain("This share link is unknown or has expired.");
    expect(after.text).not.toContain("Alpha Refresh");
    expect(after.text).not.toContain("data-render-complete");

    // A report made after the refresh carries a link that works.
    const fresh = await shareLink(customer.provided_id);
    expect((await page(fresh.link)).status).toBe(200);
    for (const id of [jobId, fresh.jobId]) await waitForJob(ctx.read, id, (s) => s === "done" || s === "failed");
  });

  it("stops working (404 page) once its customer is deleted", async () => {
    const customer = await createCustomer(ctx.write, {
      provided_id: unique("alpha-gone"),
      name: "Alpha Gone",
      mapping: { [ctx.schema]: ctx.demo },
    });
    const { link, jobId } = await shareLink(customer.provided_id);
    await waitForJob(ctx.read, jobId, (s) => s === "done" || s === "failed");
    expect((await page(link)).status).toBe(200);
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: customer.token } });
    expect(deleted.status).toBe(200);
    const after = await page(link);
    expect(after.status).toBe(404);
    expect(after.text).not.toContain("Alpha Gone");
  });
});
