import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deliverySetup, waitForJob } from "../helpers/delivery";
import { call, callWithEnv } from "../helpers/api";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});
afterEach(() => vi.restoreAllMocks());

/** Calls the real Worker with request logging on (the test project logs warnings only). */
async function fetchLogged(path: string): Promise<{ status: number; lines: string[] }> {
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level));
  const { status } = await callWithEnv({ LOG_LEVEL: "debug" }, "GET", path);
  const lines = spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));
  return { status, lines };
}

describe("capability URLs stay out of the request log", () => {
  it("logs a download link's request without its token", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done");
    const token = new URL(res.body.url).pathname.split("/").pop()!;
    for (const path of [`/api/downloads/${token}`, `/api/downloads/${token}/`]) {
      const { status, lines } = await fetchLogged(path);
      expect(status).toBe(200);
      const requestLine = lines.find((line) => line.includes('"message":"request"'));
      expect(JSON.parse(requestLine!)).toMatchObject({ path: expect.stringMatching(/^\/api\/downloads\/\[redacted\]\/?$/), status: 200 });
      expect(lines.filter((line) => line.includes(token))).toEqual([]);
    }
  }, 60_000);

  it("logs a share link's request without its token", async () => {
    const res = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email: "logs@alpha.example" },
    });
    expect(res.status).toBe(200);
    const share = (await (env as unknown as { DB: D1Database }).DB.prepare("SELECT request FROM jobs WHERE id = ?")
      .bind(res.body.job_id)
      .first<{ request: string }>())!;
    const token = new URL(JSON.parse(share.request).linkUrl).pathname.split("/").pop()!;
    const { status, lines } = await fetchLogged(`/share/${token}`);
    expect(status).toBe(200);
    expect(lines.some((line) => line.includes('"path":"/share/[redacted]"'))).toBe(true);
    expect(lines.filter((line) => line.includes(token))).toEqual([]);
  });

  it("redacts unknown and malformed tokens too (they may be real ones mistyped)", async () => {
    const token = "f".repeat(64);
    for (const path of [`/api/downloads/${token}`, `/share/${token}`, `/share/${token}x`]) {
      const { status, lines } = await fetchLogged(path);
      expect(status).toBe(404);
      expect(lines.some((line) => line.includes("[redacted]"))).toBe(true);
      expect(lines.filter((line) => line.includes(token))).toEqual([]);
    }
  });
});
