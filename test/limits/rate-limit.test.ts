import { runInDurableObject, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, sha256, workspace } from "../helpers/api";

// This project runs with RATE_LIMIT_PER_MINUTE=40 (vitest.config.mts).
const LIMIT = 40;

/** Waits for a fresh window when the current one is about to end, so a burst fits in one. */
async function freshWindow(token: string): Promise<void> {
  const probe = await call("GET", "/api/group_tags/", { token });
  const reset = Number(probe.headers.get("RateLimit-Reset"));
  if (reset < 8) await new Promise((resolve) => setTimeout(resolve, (reset + 1) * 1000));
}

describe("rate limit per API token (RATE_LIMIT_PER_MINUTE=40)", () => {
  it("counts every call, answers 429 with Retry-After past the limit, and does not count refused calls", async () => {
    const { write, read } = await workspace();
    await freshWindow(write);
    const first = await call("GET", "/api/group_tags/", { token: write });
    const used = LIMIT - Number(first.headers.get("RateLimit-Remaining"));
    expect(first.headers.get("RateLimit-Limit")).toBe(String(LIMIT));
    const reset = Number(first.headers.get("RateLimit-Reset"));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);

    let last = first;
    for (let i = used; i < LIMIT; i++) last = await call("GET", "/api/group_tags/", { token: write });
    expect(last.status).toBe(200);
    expect(last.headers.get("RateLimit-Remaining")).toBe("0");

    const refused = await call("GET", "/api/group_tags/", { token: write });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");

    // Refused calls leave the stored count at the limit.
    await call("GET", "/api/group_tags/", { token: write });
    const namespace = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace }).API_TOKEN_GUARD;
    const stub = namespace.get(namespace.idFromName(await sha256(write)));
    const count = await runInDurableObject(
      stub,
      (_instance, state) => state.storage.sql.exec<{ count: number }>("SELECT count FROM windows WHERE bucket = 'api'").one().count,
    );
    expect(count).toBe(LIMIT);

    // Another token of the same group has its own budget.
    const other = await call("GET", "/api/group_tags/", { token: read });
    expect(other.status).toBe(200);
  });

  it("carries RateLimit headers on authenticated errors too", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: "nobody" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("RateLimit-Limit")).toBe(String(LIMIT));
    expect(res.headers.get("RateLimit-Remaining")).not.toBeNull();
    expect(res.headers.get("RateLimit-Reset")).not.toBeNull();
  });
});
