import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { bindings, deliverySetup, jobRow, unique, unqueuedJob } from "../../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Hands the queue consumer one batch of these bodies (first delivery each); answers what it acked and retried. */
async function consume(bodies: Record<string, unknown>) {
  const batch = createMessageBatch(
    "customer-dashboard-delivery",
    Object.entries(bodies).map(([id, body]) => ({ id, timestamp: new Date(), attempts: 1, body })),
  );
  const executionContext = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, bindings as never, executionContext);
  await waitOnExecutionContext(executionContext);
  return getQueueResult(batch, executionContext);
}

describe("the delivery queue's messages are parsed before anything acts on them (run/message.ts)", () => {
  it("acknowledges a malformed message once, with a warning naming it, and runs the well-formed job beside it (control)", async () => {
    const warnings = vi.spyOn(console, "warn");
    const jobId = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, null);
    const email = `${unique("secret-recipient")}@example.com`;
    const malformed = {
      "not-an-object": "render please",
      "no-body": null,
      "job-id-a-number": { jobId: 42 },
      "job-id-empty": { jobId: "" },
      "attempts-as-text": { jobId, after: "one" },
      "page-without-customer": { jobId, page: { embedId: ctx.embedId, request: { email } } },
      "webhook-id-a-number": { webhook: 7, attempt: 1 },
      "alert-webhook-without-body": { alertWebhook: { url: "https://example.com/hook", accessGroupId: 1 }, attempt: 1 },
    };
    const result = await consume({ ...malformed, "well-formed": { jobId } });

    expect(result.retryMessages).toEqual([]);
    expect([...result.explicitAcks].sort()).toEqual([...Object.keys(malformed), "well-formed"].sort());
    // The well-formed message ran its job; the malformed ones touched nothing.
    expect(await jobRow(jobId)).toMatchObject({ status: "done", attempts: 1, error: null });

    const logged = warnings.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Record<string, string>)
      .filter((line) => line.message === "malformed delivery message acknowledged");
    expect(logged.map((line) => line.message_id).sort()).toEqual(Object.keys(malformed).sort());
    expect(logged.find((line) => line.message_id === "job-id-a-number")!.detail).toMatch(/jobId/);
    // The body is not logged: a page carries e-mail addresses.
    expect(JSON.stringify(logged)).not.toContain(email);
  });
});
